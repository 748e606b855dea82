import { randomBytes } from "node:crypto";
import { createSocket } from "node:dgram";
import { readFileSync } from "node:fs";
import { buildDatagram } from "../../proto/datagram";
import { encodeRecords } from "../../proto/messages";
import { newId } from "../../worker/lib/ids";
import { parseArgs } from "../lib/config";
import { position } from "../lib/sampleRecords";

const HELP = `The relay benchmark's other processes (one JSON line of results on stdout each).

  udpPeer.ts send --port <n> --flight <id> --key <base64> --count <n> [--rate <per s>] [--first-serial <n>]
      builds <count> datagrams of one Position each (serials from --first-serial, default 1) before the
      clock starts, then sends them to 127.0.0.1:<port>: as fast as it can, or at --rate a second.
      Prints {"sent", "seconds"}.
  udpPeer.ts receive [--recv-buffer-mb <n>]
      a bare dgram receiver that only counts: prints {"port"} once bound, then {"received"} on SIGTERM.
  udpPeer.ts fleet --port <n> --sessions <file.json> [--hz 10] [--seconds 3]
      many sessions from one address (a carrier NAT, a ground station): the file lists
      [{"flightId","key"}]; each session sends one Position datagram per 1/hz s, spread evenly over the
      period. Prints {"sent", "seconds"}.
  udpPeer.ts unknown --port <n> --count <n> --rate <per s>
      datagrams for made-up flight ids of the worker's shape (a flood of unknown flights).
      Prints {"sent", "seconds"}.`;

const { flags, positionals } = parseArgs(process.argv.slice(2));
const flag = (name: string, fallback?: string): string => {
  const value = flags.get(name);
  if (typeof value === "string") return value;
  if (fallback !== undefined) return fallback;
  throw new Error(`--${name} is required\n\n${HELP}`);
};

async function send() {
  const port = Number(flag("port"));
  const count = Number(flag("count"));
  const rate = Number(flag("rate", "0"));
  const first = Number(flag("first-serial", "1"));
  const key = Buffer.from(flag("key"), "base64");
  const flightId = flag("flight");
  // One ms apart, ending now: inside the session's window (proto/recordTime.ts) for up to an hour of ms.
  const end = Date.now();
  const datagrams = Array.from({ length: count }, (_, i) =>
    buildDatagram({ serial: first + i, flightId, key, payload: encodeRecords([position(end - count + i)]) }),
  );
  const socket = createSocket("udp4");
  socket.connect(port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  const started = performance.now();
  let sent = 0;
  while (sent < count) {
    // Flooding sends in slices so send callbacks get to run; a fixed rate sends what is due each ms.
    const due =
      rate > 0 ? Math.min(count, Math.floor(((performance.now() - started) * rate) / 1000)) : sent + 256;
    for (; sent < Math.min(due, count); sent++) socket.send(datagrams[sent]!);
    await new Promise((resolve) => (rate > 0 ? setTimeout(resolve, 1) : setImmediate(resolve)));
  }
  const seconds = (performance.now() - started) / 1000;
  socket.close();
  console.log(JSON.stringify({ sent, seconds }));
}

/** Sends pre-built datagrams, each at its due time (ms after the start); prints {"sent","seconds"}. */
async function sendScheduled(port: number, datagrams: Buffer[], dueMs: (i: number) => number) {
  const socket = createSocket("udp4");
  socket.connect(port, "127.0.0.1");
  await new Promise((resolve) => socket.once("connect", resolve));
  const started = performance.now();
  let sent = 0;
  while (sent < datagrams.length) {
    const now = performance.now() - started;
    for (; sent < datagrams.length && dueMs(sent) <= now; sent++) socket.send(datagrams[sent]!);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  const seconds = (performance.now() - started) / 1000;
  // Let the last sends leave before the socket closes.
  await new Promise((resolve) => setTimeout(resolve, 50));
  socket.close();
  console.log(JSON.stringify({ sent, seconds }));
}

async function fleet() {
  const sessions = JSON.parse(readFileSync(flag("sessions"), "utf8")) as { flightId: string; key: string }[];
  const hz = Number(flag("hz", "10"));
  const ticks = Math.round(hz * Number(flag("seconds", "3")));
  const periodMs = 1000 / hz;
  const datagrams: Buffer[] = [];
  const due: number[] = [];
  const t0 = Date.now();
  for (let tick = 0; tick < ticks; tick++) {
    for (const [s, session] of sessions.entries()) {
      const key = Buffer.from(session.key, "base64");
      const at = tick * periodMs + (s * periodMs) / sessions.length;
      const payload = encodeRecords([position(t0 + Math.round(at))]);
      datagrams.push(buildDatagram({ serial: tick + 1, flightId: session.flightId, key, payload }));
      due.push(at);
    }
  }
  await sendScheduled(Number(flag("port")), datagrams, (i) => due[i]!);
}

async function unknown() {
  const count = Number(flag("count"));
  const rate = Number(flag("rate"));
  const key = randomBytes(32);
  const payload = encodeRecords([position(Date.now())]);
  const datagrams = Array.from({ length: count }, (_, i) =>
    buildDatagram({ serial: i + 1, flightId: newId("flight"), key, payload }),
  );
  await sendScheduled(Number(flag("port")), datagrams, (i) => (i * 1000) / rate);
}

async function receive() {
  const socket = createSocket({
    type: "udp4",
    recvBufferSize: Number(flag("recv-buffer-mb", "4")) * 1024 * 1024,
  });
  let received = 0;
  socket.on("message", () => {
    received++;
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  console.log(JSON.stringify({ port: socket.address().port }));
  process.on("SIGTERM", () => {
    console.log(JSON.stringify({ received }));
    process.exit(0);
  });
}

const modes: Record<string, () => Promise<void>> = { send, receive, fleet, unknown };
const mode = positionals[0];
if (flags.has("help") || mode === undefined || !modes[mode]) {
  console.log(HELP);
  process.exit(flags.has("help") ? 0 : 2);
}
modes[mode]!().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
