import { readFileSync } from "node:fs";
import { parseCommandLine, runCommand, usageError } from "./lib/cli";
import type { LatLng } from "./lib/flightSimulator";
import { relayAddress, serviceUrl } from "./lib/serviceAddress";
import { fly } from "./lib/telemetryFlight";

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
  --center <lat,lng>    where to fly; default the flight's own point (read with WINDSOCK_API_KEY and
                        WINDSOCK_TOKEN)
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

async function main() {
  const options = parse(process.argv.slice(2));
  await fly({ ...options, line: options.pattern === "file" ? fileLine(options.file!) : undefined });
}

runCommand(main);
