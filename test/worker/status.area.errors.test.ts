import { describe, expect, it } from "vitest";
import { bowTie } from "../geometries";
import { FALLON_PATH, FALLON_TWO_CELLS_AREA } from "./airspaceFixtures";
import { airspaceSession } from "./airspaceRequests";

const { statusGet, statusPost } = airspaceSession();

describe("GET /status/v2/polygon", () => {
  it("refuses what is not a valid polygon, and bad buffers, types and times, naming the field", async () => {
    for (const [query, field, status] of [
      [{ geometry: FALLON_PATH }, "geometry", 400],
      [{ geometry: bowTie }, "geometry", 400],
      [{ geometry: "{nope" }, "geometry", 400],
      [{}, "geometry", 400],
      [{ geometry: FALLON_TWO_CELLS_AREA, buffer: -1 }, "buffer", 400],
      [{ geometry: FALLON_TWO_CELLS_AREA, buffer: 20_001 }, "buffer", 400],
      [{ geometry: FALLON_TWO_CELLS_AREA, types: "castle" }, "types", 400],
      [{ geometry: FALLON_TWO_CELLS_AREA, datetime: "noon" }, "datetime", 400],
      [{ geometry: FALLON_TWO_CELLS_AREA, weather: "yes" }, "weather", 400],
      [{ geometry: FALLON_TWO_CELLS_AREA, latitude: 91 }, "latitude", 400],
    ] as const) {
      const res = await statusGet("polygon", query as Parameters<typeof statusGet>[1]);
      expect(res.status, JSON.stringify(query)).toBe(status);
      expect(res.json.data.errors.map((e: any) => e.name)).toEqual([field]);
    }
  });
});

describe("GET /status/v2/path", () => {
  it("takes only a LineString", async () => {
    const res = await statusGet("path", { geometry: FALLON_TWO_CELLS_AREA });
    expect(res.status).toBe(400);
    expect(res.json.data.errors[0]).toEqual({ name: "geometry", message: "must be a GeoJSON LineString" });
  });
});

describe("POST /status/v2/polygon and /status/v2/path", () => {
  it("validate the same way, and take geometries too large for a URL", async () => {
    const bad = await statusPost("polygon", { geometry: FALLON_TWO_CELLS_AREA, buffer: 20_001 });
    expect(bad.status).toBe(400);
    expect(bad.json.data.errors.map((e: any) => e.name)).toEqual(["buffer"]);
    // A 5,000-position ring (about 200 KB as JSON) around the Fallon cells.
    const ring = Array.from({ length: 5_000 }, (_, i) => {
      const a = (2 * Math.PI * i) / 5_000;
      return [-118.784 + 0.004 * Math.cos(a), 39.479 + 0.003 * Math.sin(a)];
    });
    ring.push(ring[0]!);
    const big = await statusPost("polygon", {
      geometry: { type: "Polygon", coordinates: [ring] },
      buffer: 0,
    });
    expect(big.status, big.text.slice(0, 200)).toBe(200);
    expect(big.json.data.advisory_color).toBe("orange");
  });
});
