import { createSocket } from "node:dgram";
import { readFileSync } from "node:fs";
import { parseCommandLine, runCommand, usageError } from "./lib/cli";
import type { LatLng, Pattern } from "./lib/flightSimulator";
import { relayAddress, serviceUrl } from "./lib/serviceAddress";

const HELP = `npm run telemetry:send -- --flight <id> [options]

Flies a simulated aircraft and sends its telemetry as encrypted datagrams through the UDP relay:
position, speed, attitude and barometer at --rate datagrams a second, holding --height meters above
the ground (read from this service's /elevation/v1/ele).

Secrets come from the environment, never from flags (npm echoes a command line in full):
  WINDSOCK_API_KEY      X-API-Key for the flight, its session and elevation
  WINDSOCK_TOKEN        the flight's pilot's token: opens a telemetry session (start-comm)
  WINDSOCK_SESSION_KEY  instead, the key of a session already opened (base64 of 32 bytes)
  \`. .windsock/env\` (written by npm start) sets WINDSOCK_URL, WINDSOCK_API_KEY and WINDSOCK_RELAY.

  --flight <id>         the flight (required)
  --rate <n>            datagrams a second, 0.1..100 (default 5)
  --pattern <p>         orbit (circle of --radius), line (there and back, 2 × --radius long) or file
  --file <path>         for --pattern file: a GeoJSON LineString (or a Feature holding one)
  --center <lat,lng>    where to fly; default the flight's own point (needs --api-key, and --token for
                        a private flight)
  --radius <m>          orbit radius, half the line's length (default 100)
  --speed <m/s>         ground speed (default 8)
  --height <m>          height above ground to hold (default 40)
  --duration <s>        how long to fly, 0 = until Ctrl-C (default 120)
  --relay <host:port>   the relay (default $WINDSOCK_RELAY, else 127.0.0.1:$TELEMETRY_PORT, else :16060)
  --url <base>          the API (default $WINDSOCK_URL, else http://127.0.0.1:$PORT, else :8787)
  --serial <n>          first serial (default 1: a fresh start-comm restarts serials)
  --help                this text`;

const OPTIONS = {
  flight: { type: "string" },
  rate: { type: "string", default: "5" },
  pattern: { type: "string", default: "orbit" },
  file: { type: "string" },
  center: { type: "string" },
  radius: { type: "string", default: "100" },
  speed: { type: "string", default: "8" },
  height: { type: "string", default: "40" },
  duration: { type: "string", default: "120" },
  relay: { type: "string" },
  url: { type: "string" },
  serial: { type: "string", default: "1" },
} as const;

function number(name: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value < min || value > max)
    usageError(`--${name} must be a number from ${min} to ${max}, not "${text}"`);
  return value;
}

const SECRET_FLAGS: Record<string, string> = {
  "--api-key": "WINDSOCK_API_KEY",
  "--token": "WINDSOCK_TOKEN",
  "--key": "WINDSOCK_SESSION_KEY",
};

function parse(argv: string[]) {
  for (const arg of argv) {
    const variable = SECRET_FLAGS[arg.split("=")[0]!];
    if (variable)
      usageError(`${arg.split("=")[0]} is not taken: secrets come from the environment (export ${variable})`);
  }
  const v = parseCommandLine({ help: HELP, options: OPTIONS, args: argv }).values;
  if (!v.flight) usageError("--flight <id> is required");
  const sessionKeyText = process.env.WINDSOCK_SESSION_KEY;
  const sessionKey = sessionKeyText === undefined ? undefined : Buffer.from(sessionKeyText, "base64");
  if (sessionKey && sessionKey.length !== 32) usageError("WINDSOCK_SESSION_KEY must be base64 of 32 bytes");
  const apiKey = process.env.WINDSOCK_API_KEY;
  const token = process.env.WINDSOCK_TOKEN;
  if (!sessionKey && !(apiKey && token))
    usageError(
      "no session: export WINDSOCK_API_KEY and WINDSOCK_TOKEN (to open one), or WINDSOCK_SESSION_KEY",
    );
  if (!["orbit", "line", "file"].includes(v.pattern))
    usageError(`--pattern must be orbit, line or file, not "${v.pattern}"`);
  if (v.pattern === "file" && !v.file) usageError("--pattern file needs --file <path>");
  let center: LatLng | undefined;
  if (v.center !== undefined) {
    const parts = v.center.split(",").map((p) => Number(p.trim()));
    if (
      parts.length !== 2 ||
      !(parts[0]! >= -90 && parts[0]! <= 90) ||
      !(parts[1]! >= -180 && parts[1]! <= 180)
    )
      usageError(`--center must be latitude,longitude, not "${v.center}"`);
    center = [parts[0]!, parts[1]!];
  }
  const relay = v.relay ?? relayAddress();
  const match = /^(.+):(\d{1,5})$/.exec(relay);
  if (!match) usageError(`--relay must be host:port, not "${relay}"`);
  return {
    flightId: v.flight,
    sessionKey,
    rate: number("rate", v.rate, 0.1, 100),
    pattern: v.pattern as "orbit" | "line" | "file",
    file: v.file,
    center,
    radius: number("radius", v.radius, 1, 50_000),
    speed: number("speed", v.speed, 0.1, 100),
    height: number("height", v.height, -100, 10_000),
    duration: number("duration", v.duration, 0, 86_400),
    relayHost: match[1]!.replace(/^\[|\]$/g, ""),
    relayPort: Number(match[2]),
    url: v.url?.replace(/\/+$/, "") ?? serviceUrl(),
    apiKey,
    token,
    serial: number("serial", v.serial, 0, 0xffffffff),
  };
}

type Options = ReturnType<typeof parse>;

async function api<T>(options: Options, path: string, method = "GET"): Promise<T> {
  const headers: Record<string, string> = { "x-api-key": options.apiKey! };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const res = await fetch(`${options.url}${path}`, { method, headers });
  const body = (await res.json().catch(() => undefined)) as { data?: T & { message?: string } } | undefined;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${body?.data?.message ?? ""}`.trim());
  return body!.data as T;
}

/** The session key given, or a new session's (start-comm, which restarts serials at 1). */
async function sessionKey(options: Options): Promise<Buffer> {
  if (options.sessionKey) return options.sessionKey;
  const { key } = await api<{ key: string }>(
    options,
    `/flight/v2/${encodeURIComponent(options.flightId)}/start-comm`,
    "POST",
  );
  console.log("Opened a telemetry session (start-comm).");
  return Buffer.from(key, "base64");
}

function fileLine(file: string): LatLng[] {
  const json = JSON.parse(readFileSync(file, "utf8"));
  const geometry = json.type === "Feature" ? json.geometry : json;
  if (
    geometry?.type !== "LineString" ||
    !Array.isArray(geometry.coordinates) ||
    geometry.coordinates.length < 2
  )
    usageError(`${file}: expected a GeoJSON LineString of at least two positions`);
  return geometry.coordinates.map(([lng, lat]: [number, number]) => [lat, lng] as LatLng);
}

/** Ground below the pattern, sampled every ~10 m along it in one /ele request; nearest sample wins. */
async function terrain(options: Options, pattern: Pattern): Promise<(p: LatLng) => number | null> {
  const { distance } = await import("./lib/flightSimulator");
  if (!options.apiKey) {
    console.warn("No WINDSOCK_API_KEY: flying without terrain (altitude_msl = --height above sea level).");
    return () => null;
  }
  const samples: LatLng[] = [];
  const pts = pattern.closed ? [...pattern.points, pattern.points[0]!] : pattern.points;
  for (let i = 0; i + 1 < pts.length; i++) {
    const steps = Math.max(1, Math.ceil(distance(pts[i]!, pts[i + 1]!) / 10));
    for (let s = 0; s < steps; s++) {
      const f = s / steps;
      samples.push([
        pts[i]![0] + (pts[i + 1]![0] - pts[i]![0]) * f,
        pts[i]![1] + (pts[i + 1]![1] - pts[i]![1]) * f,
      ]);
    }
  }
  samples.push(pts[pts.length - 1]!);
  const chosen = samples.filter((_, i) => i % Math.ceil(samples.length / 1000) === 0);
  const query = chosen.map(([lat, lng]) => `${lat.toFixed(6)},${lng.toFixed(6)}`).join(",");
  const values = await api<(number | null)[]>(options, `/elevation/v1/ele?points=${query}`);
  const known = values.filter((v) => v !== null).length;
  console.log(`Terrain: ${known} of ${values.length} samples along the track have elevation data.`);
  if (known === 0) console.warn("No elevation is loaded here: flying as if the ground were at sea level.");
  return (p) => {
    let best = 0;
    let bestD = Number.POSITIVE_INFINITY;
    chosen.forEach((s, i) => {
      const d = (s[0] - p[0]) ** 2 + ((s[1] - p[1]) * Math.cos((p[0] * Math.PI) / 180)) ** 2;
      if (d < bestD) {
        bestD = d;
        best = i;
      }
    });
    return values[best] ?? null;
  };
}

async function main() {
  const options = parse(process.argv.slice(2));
  const [{ buildDatagram }, { encodeRecords }, { line, orbit, sampleAt }] = await Promise.all([
    import("../proto/datagram"),
    import("../proto/messages"),
    import("./lib/flightSimulator"),
  ]);
  let center = options.center;
  if (!center) {
    if (!options.apiKey)
      usageError("give --center lat,lng, or export WINDSOCK_API_KEY to fly around the flight's point");
    const flight = await api<{ latitude: number; longitude: number }>(
      options,
      `/flight/v2/${encodeURIComponent(options.flightId)}`,
    );
    center = [flight.latitude, flight.longitude];
  }
  const pattern =
    options.pattern === "orbit"
      ? orbit(center, options.radius)
      : options.pattern === "line"
        ? line(center, options.radius)
        : { points: fileLine(options.file!), closed: false };
  const ground = await terrain(options, pattern);
  const key = await sessionKey(options);

  const socket = createSocket(options.relayHost.includes(":") ? "udp6" : "udp4");
  const interval = 1000 / options.rate;
  const tty = process.stdout.isTTY;
  const started = Date.now();
  let serial = options.serial;
  let sent = 0;
  let lastLine = 0;
  console.log(
    `Flying ${options.pattern} around ${center[0].toFixed(5)},${center[1].toFixed(5)} at ${options.speed} m/s, ` +
      `${options.height} m above ground, ${options.rate}/s to udp://${options.relayHost}:${options.relayPort} ` +
      `(${options.duration > 0 ? `${options.duration} s` : "until Ctrl-C"})`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      clearInterval(timer);
      resolve();
    };
    process.once("SIGINT", stop);
    const timer = setInterval(() => {
      const now = Date.now();
      const t = (now - started) / 1000;
      if (options.duration > 0 && t >= options.duration) return stop();
      const sample = sampleAt(
        { pattern, speed: options.speed, height: options.height, ground },
        t,
        now,
        interval / 1000,
      );
      const datagram = buildDatagram({
        serial,
        flightId: options.flightId,
        key,
        payload: encodeRecords(sample.records),
      });
      socket.send(datagram, options.relayPort, options.relayHost);
      serial = (serial + 1) >>> 0;
      sent++;
      const status =
        `[${t.toFixed(1).padStart(6)} s] serial ${serial - 1} · ${sample.position[0].toFixed(6)}, ${sample.position[1].toFixed(6)} · ` +
        `${options.height} m above ${sample.ground === null ? "unknown ground" : `${sample.ground} m ground`} · ` +
        `heading ${sample.heading.toFixed(0).padStart(3)}° · ${sent} datagrams`;
      if (tty) process.stdout.write(`\r${status}\x1b[K`);
      else if (now - lastLine >= 5000) {
        console.log(status);
        lastLine = now;
      }
    }, interval);
  });
  if (tty) process.stdout.write("\n");
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  console.log(`Sent ${sent} datagrams (${sent * 4} records), serials ${options.serial}..${serial - 1}.`);
}

runCommand(main);
