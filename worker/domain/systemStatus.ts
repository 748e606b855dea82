/** System status as the Kotlin SDK reads it (`GET /system/v1/status`): levels and how they combine. */

export const LEVELS = ["normal", "unknown", "maintenance", "degraded", "failed"] as const;
export type Level = (typeof LEVELS)[number];

export interface Component {
  id: string;
  name: string;
  level: Level;
  children: Component[];
  /** ISO 8601: when what the level rests on was last seen or changed; null when never. */
  updated_at: string | null;
}

/** How much a level weighs: `unknown` says nothing, so any known level outweighs it. */
const SEVERITY: Record<Level, number> = { unknown: 0, normal: 1, maintenance: 2, degraded: 3, failed: 4 };

/** The worst known level of the components (their children included); unknown when none is known. */
export function overallLevel(components: Component[]): Level {
  let worst: Level = "unknown";
  for (const component of components) {
    for (const level of [component.level, overallLevel(component.children)])
      if (SEVERITY[level] > SEVERITY[worst]) worst = level;
  }
  return worst;
}

/** A relay that has not called for this long is not known to be up (it calls only while telemetry flows). */
export const RELAY_SEEN_WITHIN_MS = 5 * 60_000;

export function relayLevel(lastSeen: number | undefined, now: number): Level {
  return lastSeen !== undefined && now - lastSeen <= RELAY_SEEN_WITHIN_MS ? "normal" : "unknown";
}

/**
 * The monitor's message (`GET /system/v1/status/monitor`), as the Swift SDK's AirMapSystemStatus
 * reads it: `level`, and a `message` naming the components that are not normal (null when all are).
 */
export function monitorMessage(status: { level: Level; components: Component[] }): {
  level: Level;
  message: string | null;
} {
  const notNormal: string[] = [];
  const walk = (components: Component[]) => {
    for (const component of components) {
      if (component.level !== "normal") notNormal.push(`${component.name}: ${component.level}`);
      walk(component.children);
    }
  };
  walk(status.components);
  return { level: status.level, message: notNormal.length > 0 ? notNormal.join("; ") : null };
}
