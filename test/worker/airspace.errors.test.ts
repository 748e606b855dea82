import { describe, expect, it } from "vitest";
import { airspaceSession } from "./airspaceRequests";

const { searchByBody, get } = airspaceSession();

describe("GET /airspace/v2/{id}", () => {
  it("answers 404 for an id that names no record", async () => {
    const res = await get("/airspace/v2/ourairports:ZZZZ");
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ status: "fail", data: { code: 404 } });
  });
});

describe("GET /airspace/v2/list", () => {
  it("refuses no ids and more than 100", async () => {
    for (const ids of ["", ",", Array.from({ length: 101 }, (_, i) => `x:${i}`).join(",")]) {
      const res = await get(`/airspace/v2/list?ids=${ids}`);
      expect(res.status, ids.slice(0, 20)).toBe(400);
      expect(res.json.data.errors[0].name).toBe("ids");
    }
    expect((await get("/airspace/v2/list")).status).toBe(400);
  });
});

describe("GET /airspace/v2/search", () => {
  it("refuses a geometry wider than a degree, and one of over 10,000 positions with 413", async () => {
    const wide = {
      type: "Polygon",
      coordinates: [
        [
          [-120, 39],
          [-118, 39],
          [-118, 40],
          [-120, 39],
        ],
      ],
    };
    const res = await searchByBody({ geometry: wide });
    expect(res.status).toBe(400);
    const ring = Array.from({ length: 10_001 }, (_, i) => {
      const a = (2 * Math.PI * i) / 10_000;
      return [-118.7 + 0.01 * Math.cos(a), 39.45 + 0.01 * Math.sin(a)];
    });
    ring[10_000] = ring[0]!;
    const huge = await searchByBody({ geometry: { type: "Polygon", coordinates: [ring] } });
    expect(huge.status).toBe(413);
    expect(huge.json.data.errors[0].name).toBe("geometry");
  });
});
