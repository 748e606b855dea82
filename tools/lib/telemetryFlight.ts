import { createSocket } from "node:dgram";
import { usageError } from "./cli";
import type { LatLng, Pattern } from "./flightSimulator";

/**
 * Flies a simulated aircraft and sends its telemetry as encrypted datagrams through the UDP relay:
 * what `npm run telemetry:send` and `npm run demo` do once they know where and how.
 */

export interface FlightOptions {
  flightId: string;
  url: string;
  apiKey: string | undefined;
  token: string | undefined;
  /** A session already opened; otherwise start-comm opens one with the token. */
  sessionKey: Buffer | undefined;
  /** Where to fly; undefined: around the flight's own point. */
  center: LatLng | undefined;
  pattern: "orbit" | "line" | "file";
  /** For `file`: the line to fly. */
  line?: LatLng[];
  radius: number;
  speed: number;
  height: number;
  /** Seconds; 0: until Ctrl-C. */
  duration: number;
  rate: number;
  relayHost: string;
  relayPort: number;
  serial: number;
}

async function api<T>(options: FlightOptions, path: string, method = "GET"): Promise<T> {
  const headers: Record<string, string> = { "x-api-key": options.apiKey! };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const res = await fetch(`${options.url}${path}`, { method, headers });
  const body = (await res.json().catch(() => undefined)) as { data?: T & { message?: string } } | undefined;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${body?.data?.message ?? ""}`.trim());
  return body!.data as T;
}

/** The session key given, or a new session's (start-comm, which restarts serials at 1). */
async function sessionKey(options: FlightOptions): Promise<Buffer> {
  if (options.sessionKey) return options.sessionKey;
  const { key } = await api<{ key: string }>(
    options,
    `/flight/v2/${encodeURIComponent(options.flightId)}/start-comm`,
    "POST",
  );
  console.log("Opened a telemetry session (start-comm).");
  return Buffer.from(key, "base64");
}

/** Ground below the pattern, sampled every ~10 m along it in one /ele request; nearest sample wins. */
async function terrain(options: FlightOptions, pattern: Pattern): Promise<(p: LatLng) => number | null> {
  const { distance } = await import("./flightSimulator");
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

/** Flies the pattern for its duration and sends every datagram; resolves when done (or on Ctrl-C). */
export async function fly(options: FlightOptions): Promise<void> {
  const [{ buildDatagram }, { encodeRecords }, { line, orbit, sampleAt }] = await Promise.all([
    import("../../proto/datagram"),
    import("../../proto/messages"),
    import("./flightSimulator"),
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
        : { points: options.line!, closed: false };
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
