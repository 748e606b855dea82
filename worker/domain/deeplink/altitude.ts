import { METERS_PER_FOOT } from "../units";

/** How the page shows altitudes and distances: the pilot's unit, chosen from their locale. */
export type Unit = "metric" | "imperial";

/** The altitudes a pilot picks from, in their own unit; 400 ft and 120 m are the usual drone ceilings. */
export const ALTITUDE_PRESETS: Record<Unit, number[]> = {
  imperial: [50, 100, 150, 200, 250, 300, 350, 400],
  metric: [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120],
};

/** When the link carries no altitude: a common survey height, well under both ceilings. */
const DEFAULT_ALTITUDE: Record<Unit, number> = { imperial: 200, metric: 60 };

/** Regions that measure in feet (the United States, Liberia, Myanmar). */
const IMPERIAL_REGIONS = new Set(["US", "LR", "MM"]);

export const UNIT_LABEL: Record<Unit, string> = { imperial: "ft", metric: "m" };

/** The unit of the first language tag of an Accept-Language header that names a region; else metric. */
export function unitForLocale(acceptLanguage: string | undefined): Unit {
  for (const part of (acceptLanguage ?? "").split(",")) {
    const region = /^\s*[a-z]{2,3}[-_](?:[a-z]{4}[-_])?([a-z]{2})\b/i.exec(part)?.[1];
    if (region) return IMPERIAL_REGIONS.has(region.toUpperCase()) ? "imperial" : "metric";
  }
  return "metric";
}

export function toMeters(value: number, unit: Unit): number {
  return unit === "imperial" ? value * METERS_PER_FOOT : value;
}

export function fromMeters(meters: number, unit: Unit): number {
  return unit === "imperial" ? meters / METERS_PER_FOOT : meters;
}

export interface AltitudePreset {
  /** In the pilot's unit, as shown. */
  value: number;
  label: string;
  /** Sent to the API: plans take meters. Rounded to the centimeter so 400 ft is 121.92 m. */
  meters: number;
}

export function altitudePresets(unit: Unit): AltitudePreset[] {
  return ALTITUDE_PRESETS[unit].map((value) => ({
    value,
    label: `${value} ${UNIT_LABEL[unit]}`,
    meters: roundCentimeters(toMeters(value, unit)),
  }));
}

/** The preset nearest to `meters` (ties go to the lower, more cautious one); the default when absent. */
export function snapAltitude(meters: number | undefined, unit: Unit): AltitudePreset {
  const presets = altitudePresets(unit);
  if (meters === undefined || !Number.isFinite(meters)) {
    return presets.find((p) => p.value === DEFAULT_ALTITUDE[unit])!;
  }
  let best = presets[0]!;
  for (const preset of presets) {
    if (Math.abs(preset.meters - meters) < Math.abs(best.meters - meters)) best = preset;
  }
  return best;
}

/** A distance in the pilot's unit, rounded to a whole number for display and form inputs. */
export function displayDistance(meters: number, unit: Unit): number {
  return Math.round(fromMeters(meters, unit));
}

export function roundCentimeters(meters: number): number {
  return Math.round(meters * 100) / 100;
}
