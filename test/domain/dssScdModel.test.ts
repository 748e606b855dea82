import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { boundingExtentsOf, formatTime, InvalidExtents, queryExtentsOf } from "../../worker/dss/extents";
import { BadOvnSuffix, ovnFromTime, requestedOvn } from "../../worker/dss/ovn";
import { rfc3339, squareOutline } from "../geometries";

/**
 * The pure pieces of the F3548 DSS: the one bounding extent of several volumes, a query's open
 * extents, and OVNs as InterUSS's DSS makes them (from id and write time, or the requested suffix).
 */

const T0 = Date.parse("2026-11-29T10:00:00Z");
const square = (lat: number, lng: number, d = 0.002) => ({ outline_polygon: squareOutline(lat, lng, d) });
const alt = (value: number) => ({ value, reference: "W84", units: "M" });

describe("F3548 extents", () => {
  it("bounds several volumes: every cell, earliest start, latest end, lowest floor, highest ceiling", () => {
    const a = {
      volume: { ...square(47, 8), altitude_lower: alt(10), altitude_upper: alt(50) },
      time_start: rfc3339(T0),
      time_end: rfc3339(T0 + 600_000),
    };
    const b = {
      volume: { ...square(47.05, 8.05), altitude_lower: alt(0), altitude_upper: alt(120) },
      time_start: rfc3339(T0 + 300_000),
      time_end: rfc3339(T0 + 1_800_000),
    };
    const one = boundingExtentsOf([a], T0, true);
    const both = boundingExtentsOf([a, b], T0, true);
    expect(both).toMatchObject({ startMs: T0, endMs: T0 + 1_800_000, altitudeLower: 0, altitudeUpper: 120 });
    expect(both.cells.length).toBeGreaterThan(one.cells.length);
    for (const cell of one.cells) expect(both.cells).toContain(cell);
  });

  it("requires both times, an end not past, and (for intents) both altitudes", () => {
    const volume = { volume: square(47, 8), time_start: rfc3339(T0), time_end: rfc3339(T0 + 60_000) };
    expect(() => boundingExtentsOf([{ ...volume, time_end: undefined }], T0, false)).toThrow(/time_end/);
    expect(() => boundingExtentsOf([volume], T0 + 120_000, false)).toThrow(/past/);
    expect(() => boundingExtentsOf([volume], T0, true)).toThrow(/altitude/);
    expect(() => boundingExtentsOf([], T0, false)).toThrow(InvalidExtents);
    expect(boundingExtentsOf([volume], T0, false).altitudeLower).toBeNull();
  });

  it("leaves a query's absent times and altitudes open", () => {
    const open = queryExtentsOf({ volume: square(47, 8) });
    expect(open).toMatchObject({ startMs: null, endMs: null, altitudeLower: null, altitudeUpper: null });
    expect(open.cells.length).toBeGreaterThan(0);
    expect(() => queryExtentsOf({ volume: {} })).toThrow(/area_of_interest\.volume: exactly one/);
  });
});

describe("F3548 OVNs", () => {
  it("is SHA-256 of id and write time in InterUSS's URL-safe base64, new for every write", () => {
    const id = "2f8343be-6482-4d1b-a474-16847e01af1e";
    const expected = createHash("sha256")
      .update(id + formatTime(T0))
      .digest("base64")
      .replace(/\+/g, "-")
      .replace(/\//g, ".")
      .replace(/=/g, "_");
    expect(ovnFromTime(id, T0)).toBe(expected);
    expect(ovnFromTime(id, T0)).toHaveLength(44);
    expect(ovnFromTime(id, T0 + 0.001)).not.toBe(ovnFromTime(id, T0));
  });

  it("takes a requested suffix only as a version 7 UUID within 5 minutes of now", () => {
    const hex = T0.toString(16).padStart(12, "0");
    const suffix = `${hex.slice(0, 8)}-${hex.slice(8)}-7abc-8def-0123456789ab`;
    expect(requestedOvn("id1", suffix, T0 + 60_000)).toBe(`id1_${suffix}`);
    expect(() => requestedOvn("id1", suffix, T0 + 600_000)).toThrow(BadOvnSuffix);
    expect(() => requestedOvn("id1", suffix.replace("-7abc", "-4abc"), T0)).toThrow(/version 7/);
    expect(() => requestedOvn("id1", "not-a-uuid", T0)).toThrow(/not a UUID/);
  });
});
