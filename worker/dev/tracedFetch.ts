import type { AppEnv } from "../env";
import app from "../index";
import { NO_DELAYS, RoundTrips, type StorageDelays, tracedEnv, withRoundTrips } from "./storageTrace";

/**
 * The worker's fetch with its storage calls counted, for tests and benches only (worker/dev/index.ts
 * serves it); it answers as the plain worker unless ENVIRONMENT is development. Each answer carries
 * `x-storage-round-trips` (sequential round trips to storage) and `x-storage-calls` (calls by kind);
 * a request's `x-simulated-storage-ms: primary=150,replica=20,object=150,r2=150` delays each call.
 */
export const ROUND_TRIPS_HEADER = "x-storage-round-trips";
export const CALLS_HEADER = "x-storage-calls";
/** Each call, `depth kind what` a line (URI-encoded): where a route's round trips go. */
export const LOG_HEADER = "x-storage-log";
export const DELAYS_HEADER = "x-simulated-storage-ms";

const DELAY_NAMES: Record<string, keyof StorageDelays> = {
  primary: "primaryMs",
  replica: "replicaMs",
  object: "durableObjectMs",
  r2: "r2Ms",
};

/** `primary=150,replica=20`: unnamed kinds stay at 0; anything unreadable is refused. */
export function parseDelays(header: string | null): StorageDelays | string {
  const delays = { ...NO_DELAYS };
  if (!header) return delays;
  for (const part of header.split(",")) {
    const [name = "", value = ""] = part.split("=").map((s) => s.trim());
    const field = DELAY_NAMES[name];
    const ms = Number(value);
    if (!field || !Number.isFinite(ms) || ms < 0 || ms > 10_000 || value === "")
      return `${DELAYS_HEADER}: "${part}" is not one of ${Object.keys(DELAY_NAMES).join(", ")} = 0…10000 ms`;
    delays[field] = ms;
  }
  return delays;
}

type Env = AppEnv["Bindings"];

export async function tracedFetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  if (env.ENVIRONMENT !== "development") return app.fetch(request, env, ctx);
  const delays = parseDelays(request.headers.get(DELAYS_HEADER));
  if (typeof delays === "string")
    return Response.json({ status: "fail", data: { message: delays } }, { status: 400 });
  const trips = new RoundTrips(delays);
  const response = await withRoundTrips(trips, () => app.fetch(request, tracedEnv(env), ctx));
  // A WebSocket upgrade's answer cannot be copied; the others get the counts.
  if (response.webSocket) return response;
  const counted = new Response(response.body, response);
  counted.headers.set(ROUND_TRIPS_HEADER, String(trips.sequential));
  counted.headers.set(
    CALLS_HEADER,
    Object.entries(trips.calls)
      .map(([kind, n]) => `${kind}=${n}`)
      .join(","),
  );
  counted.headers.set(LOG_HEADER, encodeURIComponent(trips.log.join("\n")));
  return counted;
}
