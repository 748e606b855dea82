import { expect } from "vitest";

/**
 * What the SDK decoders demand of airspace records and advisories (airmap/platform-sdk
 * `codec/json/airspace.cpp`, `status.cpp`, `advisory.cpp`; Kotlin `models/Airspace.kt`), checked the
 * way they read: the C++ parsers keep their default on an unknown string instead of failing, and read
 * `properties` of these types without checking that it is there.
 */

/** `Status::Color` as the C++ parser knows it; anything else silently reads as green. */
export const CPP_COLORS = ["green", "yellow", "orange", "red"];

/** The C++ `Airspace::Type` strings whose decoding reads `properties[...]` unconditionally. */
export const CPP_TYPES_READING_PROPERTIES = [
  "airport",
  "controlled_airspace",
  "special_use_airspace",
  "tfr",
  "wildfire",
  "park",
  "power_plant",
  "heliport",
  "prison",
  "school",
  "hospital",
  "fire",
];

/** Members the C++ decoder reads per type with `get` (absent is fine there, but we always send them). */
export const CPP_PROPERTY_KEYS: Record<string, string[]> = {
  airport: ["iata", "icao", "paved", "phone", "tower", "runways", "elevation", "longest_runway", "use"],
  controlled_airspace: ["airspace_classification"],
  special_use_airspace: ["type"],
  tfr: ["url", "type", "notam_reason"],
  wildfire: ["date_effective"],
  heliport: ["faa", "phone", "usage"],
  power_plant: ["tech", "plant_code"],
};

/** The color a C++ client reads: unknown strings keep the enum's first member. */
export function cppColor(value: unknown): string {
  return typeof value === "string" && CPP_COLORS.includes(value) ? value : "green";
}

/** Fails unless a record or advisory decodes in both SDKs without a silent misreading. */
export function expectDecodable(record: any) {
  const label = `${record?.type} ${record?.id}`;
  expect(typeof record.id, label).toBe("string");
  // Kotlin's required members.
  for (const key of ["name", "type", "country"]) expect(typeof record[key], `${label} ${key}`).toBe("string");
  expect(record.properties, label).toBeTypeOf("object");
  expect(record.properties, label).not.toBeNull();
  if (CPP_TYPES_READING_PROPERTIES.includes(record.type)) {
    for (const key of CPP_PROPERTY_KEYS[record.type] ?? [])
      expect(Object.keys(record.properties), `${label} properties`).toContain(key);
    // `special_use_airspace.type` is read with operator[] on a const object: the key must be there.
    if (record.type === "special_use_airspace") expect(record.properties).toHaveProperty("type");
    // Each runway's `length` is read the same way.
    for (const runway of record.properties.runways ?? []) expect(runway).toHaveProperty("length");
  }
  if ("color" in record) expect(CPP_COLORS, label).toContain(record.color);
}
