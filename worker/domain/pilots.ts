import type { pilots } from "../../schema";
import { sha256Hex } from "../lib/hash";
import { isoTime, isoTimeOrNull } from "../lib/time";

type PilotRow = typeof pilots.$inferSelect;

/** Counts computed from the pilot's flights and aircraft; times in epoch ms. */
export interface PilotStatistics {
  flight: { total: number; last_flight_time: number | null };
  aircraft: { total: number };
}

/** Longest stored `user_metadata`, as JSON text (16 Ki characters): a profile is not a document store. */
export const MAX_USER_METADATA_CHARS = 16 * 1024;
/** Deepest nesting of `user_metadata` (SQLite's JSON functions fail past 1000 levels). */
export const MAX_USER_METADATA_DEPTH = 32;

/** Levels of objects and arrays in a JSON value: 0 for a scalar, 1 for `{}`. */
export function nestingDepth(value: unknown): number {
  let depth = 0;
  let level = [value];
  for (;;) {
    const containers = level.filter((v): v is object => typeof v === "object" && v !== null);
    if (containers.length === 0) return depth;
    depth++;
    level = containers.flatMap((v) => Object.values(v));
  }
}

/**
 * E.164 from what people type: spaces, dashes, dots and brackets dropped, a leading `00` read as
 * `+`. The country code is required (we cannot guess it); undefined when the number is not E.164.
 */
export function normalizePhone(input: string): string | undefined {
  const compact = input.trim().replace(/[\s().-]/g, "");
  const international = compact.startsWith("00") ? `+${compact.slice(2)}` : compact;
  return /^\+[1-9]\d{6,14}$/.test(international) ? international : undefined;
}

export function statisticsView(statistics: PilotStatistics) {
  return {
    flight: {
      total: statistics.flight.total,
      last_flight_time: isoTimeOrNull(statistics.flight.last_flight_time),
    },
    aircraft: { total: statistics.aircraft.total },
  };
}

/**
 * A stable id for the pilot that does not give the pilot's id away (the Android SDK reads
 * `anonymized_id`, AirMapPilot.java 47): a one-way digest of it.
 */
export async function anonymizedPilotId(pilotId: string): Promise<string> {
  return `anon|${(await sha256Hex(`anonymized pilot:${pilotId}`)).slice(0, 32)}`;
}

/** What the pilot sees of themself (spec 2.3), with the `anonymizedPilotId` of the pilot. */
export function fullProfile(pilot: PilotRow, anonymizedId: string, statistics?: PilotStatistics) {
  return {
    id: pilot.id,
    anonymized_id: anonymizedId,
    email: pilot.email,
    first_name: pilot.firstName,
    last_name: pilot.lastName,
    username: pilot.username,
    picture_url: pilot.pictureUrl,
    phone: pilot.phone,
    user_metadata: pilot.userMetadata,
    app_metadata: pilot.appMetadata,
    created_at: isoTime(pilot.createdAt),
    verification_status: { email: pilot.emailVerified, phone: pilot.phoneVerified },
    ...(statistics ? { statistics: statisticsView(statistics) } : {}),
  };
}

/** What anyone else sees: exactly id, username and statistics (CONTRACT §5), no contact data. */
export function publicProfile(pilot: PilotRow, statistics?: PilotStatistics) {
  return {
    id: pilot.id,
    username: pilot.username,
    ...(statistics ? { statistics: statisticsView(statistics) } : {}),
  };
}
