import type { SourceFreshness } from "../domain/airspace/feeds/freshness";
import { MANIFEST_KEY } from "../domain/elevation/grid";
import { type Component, type Level, monitorMessage, overallLevel, relayLevel } from "../domain/systemStatus";
import { weatherProviderFrom } from "../domain/weather/provider";
import type { Bindings, Db } from "../env";
import { isoTime, isoTimeOrNull } from "../lib/time";
import { d1Runner } from "../store/airspaceFeeds";
import { airspaceSources } from "./airspaceSources";
import { relayLastSeen } from "./relayHeartbeat";
import { providerFetch } from "./weather";

/** The checks behind `GET /system/v1/status`: each reads what it reports on, nothing is assumed. */

const component = (
  id: string,
  name: string,
  level: Level,
  updatedAt: string | null,
  children: Component[] = [],
): Component => ({ id, name, level, children, updated_at: updatedAt });

/**
 * D1 answers, and the airspace data every advisory reads is loaded: one child per source (the FAA
 * feeds and the loaded datasets), each with its origin, record count, freshness and last error.
 */
async function databaseAndAirspace(db: Db, env: Bindings, now: number): Promise<Component[]> {
  let sources: SourceFreshness[];
  try {
    sources = await airspaceSources(d1Runner(db.$client), env, now);
  } catch (error) {
    console.error(
      JSON.stringify({ level: "error", message: "system status: D1 failed", error: String(error) }),
    );
    return [
      component("database", "Database (D1) unreachable", "failed", isoTime(now)),
      component("airspace_data", "Airspace data (not readable)", "unknown", null),
    ];
  }
  const children = sources.map((s) =>
    component(
      `airspace_data:${s.id}`,
      `${s.title}: ${s.records} records from ${s.origin}` +
        (s.kind === "feed" && s.last_success_at === null ? ", not synced yet" : "") +
        (s.last_error ? `; last error: ${s.last_error}` : ""),
      s.level,
      s.last_success_at,
    ),
  );
  const loaded = sources.some((s) => s.records > 0);
  const synced = sources.flatMap((s) => (s.last_success_at ? [Date.parse(s.last_success_at)] : []));
  return [
    component("database", "Database (D1)", "normal", isoTime(now)),
    component(
      "airspace_data",
      loaded ? "Airspace data" : "Airspace data: nothing loaded, every advisory answer is empty",
      loaded ? "normal" : "degraded",
      isoTimeOrNull(synced.length > 0 ? Math.max(...synced) : null),
      children,
    ),
  ];
}

/** R2 holds the elevation manifest: without it every elevation answer is null. */
async function elevation(bucket: R2Bucket): Promise<Component> {
  try {
    const manifest = await bucket.head(MANIFEST_KEY);
    return manifest
      ? component("elevation", "Elevation tiles (R2)", "normal", manifest.uploaded.toISOString())
      : component(
          "elevation",
          "Elevation tiles (R2): none loaded, every elevation is null",
          "degraded",
          null,
        );
  } catch (error) {
    console.error(
      JSON.stringify({ level: "error", message: "system status: R2 failed", error: String(error) }),
    );
    return component("elevation", "Elevation tiles (R2) unreachable", "failed", null);
  }
}

function telemetry(env: Bindings): Component {
  const seen = relayLastSeen();
  const now = Date.now();
  const children = [
    component(
      "telemetry:relay",
      seen === undefined ? "UDP relay (not seen by this worker instance)" : "UDP relay",
      relayLevel(seen, now),
      isoTimeOrNull(seen),
    ),
    env.TELEMETRY_MASTER_KEY
      ? component("telemetry:session_keys", "Session keys (TELEMETRY_MASTER_KEY)", "normal", null)
      : component("telemetry:session_keys", "Session keys: TELEMETRY_MASTER_KEY is not set", "failed", null),
    env.RELAY_SECRET
      ? component("telemetry:relay_credential", "Relay credential (RELAY_SECRET)", "normal", null)
      : component("telemetry:relay_credential", "Relay credential: RELAY_SECRET is not set", "failed", null),
  ];
  return component("telemetry", "Telemetry", overallLevel(children), isoTimeOrNull(seen), children);
}

function weather(env: Bindings): Component {
  const setup = weatherProviderFrom(env, providerFetch);
  return "provider" in setup
    ? component("weather", `Weather (${setup.provider.name})`, "normal", null)
    : component("weather", `Weather: ${setup.unavailable}`, "degraded", null);
}

/** The service's parts, each checked now, and the worst known level among them. */
export async function systemStatus(
  db: Db,
  env: Bindings,
): Promise<{ level: Level; components: Component[] }> {
  const components = await systemComponents(db, env);
  return { level: overallLevel(components), components };
}

/** The status as the monitor's WebSocket sends it: the level, and the components that are not normal. */
export async function systemMonitorMessage(db: Db, env: Bindings) {
  return monitorMessage(await systemStatus(db, env));
}

async function systemComponents(db: Db, env: Bindings, now = Date.now()): Promise<Component[]> {
  const [stored, tiles] = await Promise.all([databaseAndAirspace(db, env, now), elevation(env.ELEVATION)]);
  return [
    component("api", "API (this worker)", "normal", isoTime(now)),
    ...stored,
    tiles,
    telemetry(env),
    weather(env),
  ];
}
