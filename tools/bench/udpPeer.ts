import { createSocket } from "node:dgram";
import { parseArgs } from "../lib/config";
import { buildDatagram, encodeRecords, position } from "../lib/datagrams";

const HELP = `The relay benchmark's other processes (one JSON line of results on stdout each).

  udpPeer.ts send --port <n> --flight <id> --key <base64> --count <n> [--rate <per s>] [--first-serial <n>]
      builds <count> datagrams of one Position each (serials from --first-serial, default 1) before the
      clock starts, then sends them to 127.0.0.1:<port>: as fast as it can, or at --rate a second.
      Prints {"sent", "seconds"}.
  udpPeer.ts receive [--recv-buffer-mb <n>]
      a bare dgram receiver that only counts: prints {"port"} once bound, then {"received"} on SIGTERM.`;

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
  const datagrams = Array.from({ length: count }, (_, i) =>
    buildDatagram({ serial: first + i, flightId, key, payload: encodeRecords([position(Date.now() + i)]) }),
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

const mode = positionals[0];
if (flags.has("help") || (mode !== "send" && mode !== "receive")) {
  console.log(HELP);
  process.exit(flags.has("help") ? 0 : 2);
}
(mode === "send" ? send() : receive()).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
