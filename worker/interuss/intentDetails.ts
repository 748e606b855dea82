import type { Volume4DInput } from "../dss/extents";
import { rfcTime } from "../dss/outcome";
import type { OperationalIntentReference } from "../dss/scdDss";
import { InvalidInput, type Volume, volume4d, volumesMeet } from "./volumes";

/**
 * An ASTM F3548-21 operational intent as USSs exchange it (`utm.yaml`'s OperationalIntent: the DSS's
 * reference and the details only USSs hold): Windsock's plans written as one, and other USSs' read
 * into the volumes and priority that planning weighs.
 */

/** A volume without a time is planned from now for this long (as the plan's flight is). */
const OPEN_VOLUME_MS = 3600_000;
/** Without altitudes a volume reaches from the ground to 400 ft, the small-UAS ceiling (meters). */
const DEFAULT_FLOOR_M = 0;
const DEFAULT_CEILING_M = 121.92;

export interface OperationalIntentDetails {
  volumes: Volume4DInput[];
  off_nominal_volumes: Volume4DInput[];
  priority: number;
}

export interface OperationalIntent {
  reference: OperationalIntentReference;
  details: OperationalIntentDetails;
}

const meters = (value: number) => ({ value, reference: "W84", units: "M" });

/** A planning volume as F3548's Volume4D: its outline as given, altitudes and times always. */
export function f3548Volume(volume: Volume, now: number): Volume4DInput {
  const start = volume.start ?? now;
  const end = volume.end ?? Math.max(start, now) + OPEN_VOLUME_MS;
  const outline = volume.circle
    ? {
        outline_circle: {
          center: { lat: volume.circle.center[1], lng: volume.circle.center[0] },
          radius: { value: volume.circle.radiusM, units: "M" },
        },
      }
    : {
        outline_polygon: {
          vertices: volume.area.coordinates[0]!.slice(0, -1).map(([lng, lat]) => ({ lat: lat!, lng: lng! })),
        },
      };
  return {
    volume: {
      ...outline,
      altitude_lower: meters(volume.lowerM ?? DEFAULT_FLOOR_M),
      altitude_upper: meters(volume.upperM ?? Math.max(DEFAULT_CEILING_M, volume.lowerM ?? 0)),
    },
    time_start: rfcTime(start),
    time_end: rfcTime(end),
  };
}

/** Whether any of our volumes meets any of theirs. */
export const meet = (ours: Volume[], theirs: Volume[]) =>
  ours.some((a) => theirs.some((b) => volumesMeet(a, b)));

/** A received intent, read: its reference's id, version and OVN, its volumes and priority. */
export interface ParsedIntent {
  reference: { id: string; version: number; ovn: string };
  volumes: Volume[];
  priority: number;
  endsAt: number;
}

export function parseIntent(intent: unknown, field: string): ParsedIntent {
  const o = intent as { reference?: Record<string, unknown>; details?: Record<string, unknown> } | null;
  const reference = o?.reference;
  if (!reference || typeof reference !== "object") throw new InvalidInput(`${field}.reference`, "required");
  const { id, version, ovn } = reference;
  if (typeof id !== "string") throw new InvalidInput(`${field}.reference.id`, "required (a string)");
  if (typeof version !== "number")
    throw new InvalidInput(`${field}.reference.version`, "required (a number)");
  if (typeof ovn !== "string" || ovn.length === 0)
    throw new InvalidInput(`${field}.reference.ovn`, "required (the OVN)");
  const { volumes, priority } = readDetails(o?.details ?? {}, `${field}.details`);
  const ends = volumes.map((v) => v.end).filter((t): t is number => t !== null);
  return {
    reference: { id, version, ovn },
    volumes,
    priority,
    endsAt: ends.length > 0 ? Math.max(...ends) : Number.MAX_SAFE_INTEGER,
  };
}

/** OperationalIntentDetails read: every volume (nominal and off-nominal) and the priority (0 if absent). */
export function readDetails(details: unknown, field: string): { volumes: Volume[]; priority: number } {
  const d = (details ?? {}) as Record<string, unknown>;
  const list = (name: "volumes" | "off_nominal_volumes") => {
    const value = d[name] ?? [];
    if (!Array.isArray(value)) throw new InvalidInput(`${field}.${name}`, "must be an array");
    return value.map((v, i) => volume4d(v, `${field}.${name}.${i}`));
  };
  const priority = d.priority ?? 0;
  if (typeof priority !== "number" || !Number.isInteger(priority))
    throw new InvalidInput(`${field}.priority`, "must be an integer");
  return { volumes: [...list("volumes"), ...list("off_nominal_volumes")], priority };
}
