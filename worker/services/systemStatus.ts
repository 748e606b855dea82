import { MANIFEST_KEY } from "../domain/elevation/grid";
import { type Component, type Level, overallLevel, relayLevel } from "../domain/systemStatus";
import { weatherProviderFrom } from "../domain/weather/provider";
import type { Bindings, Db } from "../env";
import { isoTime, isoTimeOrNull } from "../lib/time";
import { loadedDatasets } from "../store/airspaceRecords";
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

/** D1 answers, and the airspace data every advisory reads is loaded (one child per dataset). */
async function databaseAndAirspace(db: Db, now: number): Promise<Component[]> {
  let datasets: Awaited<ReturnType<typeof loadedDatasets>>;
  try {
    datasets = await loadedDatasets(db);
  } catch (error) {
    console.error(
      JSON.stringify({ level: "error", message: "system status: D1 failed", error: String(error) }),
    );
    return [
      component("database", "Database (D1) unreachable", "failed", isoTime(now)),
      component("airspace_data", "Airspace data (not readable)", "unknown", null),
    ];
  }
  const children = datasets.map((d) =>
    component(
      `airspace_data:${d.name}`,
      `${d.name}: ${d.records} records`,
      d.records > 0 ? "normal" : "degraded",
      isoTime(d.loadedAt),
    ),
  );
  const loaded = datasets.some((d) => d.records > 0);
  return [
    component("database", "Database (D1)", "normal", isoTime(now)),
    component(
      "airspace_data",
      loaded ? "Airspace data" : "Airspace data: nothing loaded, every advisory answer is empty",
      loaded ? "normal" : "degraded",
      isoTimeOrNull(datasets.length > 0 ? Math.max(...datasets.map((d) => d.loadedAt)) : null),
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

export async function systemComponents(db: Db, env: Bindings, now = Date.now()): Promise<Component[]> {
  const [stored, tiles] = await Promise.all([databaseAndAirspace(db, now), elevation(env.ELEVATION)]);
  return [
    component("api", "API (this worker)", "normal", isoTime(now)),
    ...stored,
    tiles,
    telemetry(env),
    weather(env),
  ];
}
