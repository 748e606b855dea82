import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { parseCommandLine, runCommand, usageError } from "./lib/cli";
import { ENV_FILE } from "./lib/config";
import { fly } from "./lib/telemetryFlight";

const HELP = `npm run demo [-- options]

Shows the service at work in one command, against the copy \`npm start\` runs (its address and key
from ${"`"}.windsock/env${"`"}, or $STATE_DIR/env for a copy with its own state): a pilot's token, a flight
on the ridge above Jacksboro, Tennessee (real terrain is loaded there), its live page (printed, and
opened in a browser when there is a display), an orbit flown through the telemetry relay 50 m above
the ground, then the end of the flight. The live page then replays the whole flight and offers its
track as CSV, GPX and KML.

  --duration <s>   how long to fly (default 60)
  --no-open        print the live page's link without opening a browser
  --help           this text`;

/** The ridge above Jacksboro, inside the embedded terrain; the README's walkthrough flies there too. */
const WHERE = { latitude: 36.3015, longitude: -84.119 };

/** The shell file npm start wrote: `export NAME=value` lines. */
function runningCopy(): Record<string, string> {
  if (!existsSync(ENV_FILE))
    usageError(
      `no running copy found (${ENV_FILE} is missing): start one with npm start, then run this again`,
    );
  const values: Record<string, string> = {};
  for (const line of readFileSync(ENV_FILE, "utf8").split("\n")) {
    const match = /^export ([A-Z_]+)=(.*)$/.exec(line.trim());
    if (match) values[match[1]!] = match[2]!.replace(/^'(.*)'$/, "$1");
  }
  if (!values.WINDSOCK_URL || !values.WINDSOCK_API_KEY || !values.WINDSOCK_RELAY)
    usageError(`${ENV_FILE} lacks WINDSOCK_URL, WINDSOCK_API_KEY or WINDSOCK_RELAY: restart npm start`);
  return values;
}

/** Opens the URL in the desktop's browser when there is one; says so either way. */
function openInBrowser(url: string): void {
  const opener = process.platform === "darwin" ? "open" : process.platform === "win32" ? "start" : "xdg-open";
  if (process.platform === "linux" && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    console.log("(No display here: open the link above in a browser.)");
    return;
  }
  const child = spawn(opener, [url], { stdio: "ignore", detached: true });
  child.on("error", () => console.log(`(Could not run ${opener}: open the link above in a browser.)`));
  child.unref();
}

async function main() {
  const v = parseCommandLine({
    help: HELP,
    options: { duration: { type: "string", default: "60" }, "no-open": { type: "boolean" } },
  }).values;
  const duration = Number(v.duration);
  if (!Number.isFinite(duration) || duration < 5 || duration > 3600)
    usageError(`--duration must be 5 to 3600 seconds, not "${v.duration}"`);
  const copy = runningCopy();
  const url = copy.WINDSOCK_URL!.replace(/\/+$/, "");
  const apiKey = copy.WINDSOCK_API_KEY!;
  const call = async <T>(path: string, body?: unknown, token?: string): Promise<T> => {
    const headers: Record<string, string> = { "x-api-key": apiKey };
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(`${url}${path}`, {
      method: body === undefined && !path.endsWith("/end") && !path.endsWith("/ticket") ? "GET" : "POST",
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }).catch(() => usageError(`the service at ${url} does not answer: is npm start still running?`));
    const json = (await res.json().catch(() => ({}))) as { data?: T & { message?: string } };
    if (!res.ok) throw new Error(`${path}: ${res.status} ${json.data?.message ?? ""}`.trim());
    return json.data as T;
  };

  const token = (await call<{ id_token: string }>("/auth/v1/anonymous/token", { user_id: "demo-pilot" }))
    .id_token;
  const flight = await call<{ id: string }>(
    "/flight/v2/point",
    { ...WHERE, buffer: 200, max_altitude: 100, end_time: new Date(Date.now() + 30 * 60_000).toISOString() },
    token,
  );
  const id = encodeURIComponent(flight.id);
  console.log(`1. A flight above Jacksboro, Tennessee: ${flight.id}`);
  const ticket = await call<{ live_url: string; expires_at: string }>(
    `/flight/v2/${id}/ticket`,
    undefined,
    token,
  );
  console.log(
    `2. Its live page (the link works until ${ticket.expires_at.slice(11, 16)} UTC):\n\n   ${ticket.live_url}\n`,
  );
  if (!v["no-open"]) openInBrowser(ticket.live_url);
  console.log(
    `3. Flying an orbit 50 m above the ground for ${duration} s through the relay at ${copy.WINDSOCK_RELAY}`,
  );
  const [relayHost, relayPort] = [
    copy.WINDSOCK_RELAY!.replace(/:\d+$/, ""),
    Number(/:(\d+)$/.exec(copy.WINDSOCK_RELAY!)?.[1]),
  ];
  await fly({
    flightId: flight.id,
    url,
    apiKey,
    token,
    sessionKey: undefined,
    center: [WHERE.latitude, WHERE.longitude],
    pattern: "orbit",
    radius: 120,
    speed: 10,
    height: 50,
    duration,
    rate: 5,
    relayHost,
    relayPort,
    serial: 1,
  });
  await call(`/flight/v2/${id}/end`, undefined, token);
  console.log(
    `4. Ended the flight. Reload the live page to replay it and download its track (CSV, GPX, KML).`,
  );
}

runCommand(main);
