import { beforeAll, describe, expect, it } from "vitest";
import { bowTie } from "../geometries";
import {
  FALLON_TWO_CELLS_AREA,
  loadAirspaceFixtures,
  SELLAFIELD_AREA,
  YOSEMITE_AREA,
} from "./airspaceFixtures";
import { cppColor, expectDecodable } from "./airspaceSdk";
import { call, createAccount, type TestAccount } from "./helpers";

let account: TestAccount;
beforeAll(async () => {
  await loadAirspaceFixtures();
  account = await createAccount();
});

type Query = Record<string, string | number | boolean | object>;
const asQuery = (query: Query) =>
  new URLSearchParams(
    Object.entries(query).map(([k, v]) => [k, typeof v === "object" ? JSON.stringify(v) : String(v)]),
  );
const statusGet = (kind: "polygon" | "path" | "point", query: Query) =>
  call(`/status/v2/${kind}?${asQuery(query)}`, { apiKey: account.apiKey });
const statusPost = (kind: "polygon" | "path", body: Query) =>
  call(`/status/v2/${kind}`, { method: "POST", apiKey: account.apiKey, body });

/** Through the Fallon facility-map cells (200 and 400 ft) and past the school. */
const FALLON_PATH = {
  type: "LineString",
  coordinates: [
    [-118.7905, 39.479],
    [-118.7765, 39.479],
  ],
};
const JUNE_2030 = "2030-06-01T15:00:00.000000Z";
/** Near the TFR of June 2030 and nothing else. */
const TFR_AREA = {
  type: "Polygon",
  coordinates: [
    [
      [-118.62, 39.58],
      [-118.58, 39.58],
      [-118.58, 39.62],
      [-118.62, 39.62],
      [-118.62, 39.58],
    ],
  ],
};

describe("GET /status/v2/polygon", () => {
  it("colors the area orange in controlled airspace, which a C++ client reads as orange", async () => {
    const res = await statusGet("polygon", {
      geometry: FALLON_TWO_CELLS_AREA,
      latitude: 39.479,
      longitude: -118.78,
    });
    expect(res.status).toBe(200);
    expect(res.json.data.advisory_color).toBe("orange");
    expect(cppColor(res.json.data.advisory_color)).toBe("orange");
    expect(res.json.data.max_safe_distance).toBe(0);
    const classD = res.json.data.advisories.find((a: any) => a.name === "FALLON CLASS D");
    expect(classD).toMatchObject({
      type: "controlled_airspace",
      color: "orange",
      distance: 0,
      properties: { airspace_classification: "D", laanc: true, ceiling: 200, airport_id: "NFL" },
    });
    for (const advisory of res.json.data.advisories) {
      expectDecodable(advisory);
      expect(cppColor(advisory.color)).toBe(advisory.color);
    }
  });

  it("is red over a TFR in effect and in a national park, and green where nothing is near", async () => {
    const tfr = await statusGet("polygon", { geometry: TFR_AREA, datetime: JUNE_2030, buffer: 0 });
    expect(tfr.json.data.advisory_color).toBe("red");
    expect(cppColor(tfr.json.data.advisory_color)).toBe("red");
    expect(tfr.json.data.advisories.find((a: any) => a.type === "tfr")).toMatchObject({
      color: "red",
      properties: { url: expect.any(String), type: expect.any(String), notam_reason: null },
    });
    const park = await statusGet("polygon", { geometry: YOSEMITE_AREA, buffer: 0 });
    expect(park.json.data.advisory_color).toBe("red");
    const sellafield = await statusGet("polygon", { geometry: SELLAFIELD_AREA, buffer: 0 });
    expect(sellafield.json.data.advisories[0]).toMatchObject({
      type: "special_use_airspace",
      color: "red",
      properties: { type: "prohibited" },
    });
    const nowhere = await statusGet("polygon", { geometry: TFR_AREA, buffer: 0 });
    expect(nowhere.json.data).toEqual({ max_safe_distance: 0, advisory_color: "green", advisories: [] });
  });

  it("reaches out by the buffer and gives the distance to the nearest advisory", async () => {
    const near = await statusGet("polygon", { geometry: TFR_AREA, datetime: JUNE_2030, buffer: 0 });
    const tfrDistance = near.json.data.advisories[0].distance;
    const east = {
      type: "Polygon",
      coordinates: [
        [
          [-118.75, 39.474],
          [-118.749, 39.474],
          [-118.749, 39.475],
          [-118.75, 39.475],
          [-118.75, 39.474],
        ],
      ],
    };
    const tight = await statusGet("polygon", { geometry: east, types: "hospital", buffer: 0 });
    expect(tight.json.data).toEqual({ max_safe_distance: 0, advisory_color: "green", advisories: [] });
    const wide = await statusGet("polygon", { geometry: east, types: "hospital", buffer: 3000 });
    expect(wide.json.data.advisories.map((a: any) => a.name)).toEqual(["Example Regional Hospital"]);
    expect(wide.json.data.max_safe_distance).toBe(wide.json.data.advisories[0].distance);
    expect(wide.json.data.max_safe_distance).toBeGreaterThan(2000);
    expect(tfrDistance).toBe(0);
  });

  it("filters by types and ignored_types", async () => {
    const only = await statusGet("polygon", { geometry: FALLON_TWO_CELLS_AREA, types: "school,hospital" });
    expect(new Set(only.json.data.advisories.map((a: any) => a.type))).toEqual(
      new Set(["school", "hospital"]),
    );
    expect(only.json.data.advisory_color).toBe("yellow");
    const without = await statusGet("polygon", {
      geometry: FALLON_TWO_CELLS_AREA,
      ignored_types: "controlled_airspace,airport,heliport",
    });
    expect(without.json.data.advisories.some((a: any) => a.type === "controlled_airspace")).toBe(false);
    expect(without.json.data.advisories.length).toBeGreaterThan(0);
  });

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
      const res = await statusGet("polygon", query as Query);
      expect(res.status, JSON.stringify(query)).toBe(status);
      expect(res.json.data.errors.map((e: any) => e.name)).toEqual([field]);
    }
  });

  it("answers weather=true without a provider, saying why there is no weather", async () => {
    const res = await statusGet("polygon", { geometry: FALLON_TWO_CELLS_AREA, weather: true });
    expect(res.status).toBe(200);
    expect(res.json.data.weather).toBeUndefined();
    expect(res.json.data.weather_unavailable).toContain("WEATHER_PROVIDER");
    expect(res.json.data.advisory_color).toBe("orange");
    const posted = await statusPost("polygon", { geometry: FALLON_TWO_CELLS_AREA, weather: true });
    expect(posted.json.data.weather_unavailable).toBe(res.json.data.weather_unavailable);
  });
});

describe("GET /status/v2/path", () => {
  it("lists what lies along the line, measured to the line", async () => {
    const res = await statusGet("path", { geometry: FALLON_PATH, buffer: 0 });
    expect(res.status).toBe(200);
    expect(res.json.data.advisory_color).toBe("orange");
    const names = res.json.data.advisories.map((a: any) => a.name);
    expect(names).toContain("FALLON CLASS D");
    res.json.data.advisories.forEach(expectDecodable);
    // The school lies ~300 m south of the line: only a buffer that reaches it lists it.
    expect(names).not.toContain("Example Elementary School");
    const wider = await statusGet("path", { geometry: FALLON_PATH, buffer: 500 });
    expect(wider.json.data.advisories.map((a: any) => a.name)).toContain("Example Elementary School");
  });

  it("takes only a LineString", async () => {
    const res = await statusGet("path", { geometry: FALLON_TWO_CELLS_AREA });
    expect(res.status).toBe(400);
    expect(res.json.data.errors[0]).toEqual({ name: "geometry", message: "must be a GeoJSON LineString" });
  });
});

describe("POST /status/v2/polygon and /status/v2/path", () => {
  it("answer exactly as the GET forms", async () => {
    const polygonQuery = {
      geometry: FALLON_TWO_CELLS_AREA,
      buffer: 250,
      types: "controlled_airspace,school",
    };
    const viaGet = await statusGet("polygon", polygonQuery);
    const viaPost = await statusPost("polygon", polygonQuery);
    expect(viaGet.json.data.advisories.length).toBeGreaterThan(0);
    expect(viaPost.json).toEqual(viaGet.json);
    const pathQuery = { geometry: FALLON_PATH, buffer: 500, datetime: JUNE_2030 };
    const pathGet = await statusGet("path", pathQuery);
    expect((await statusPost("path", pathQuery)).json).toEqual(pathGet.json);
    expect((await statusPost("path", { ...pathQuery, geometry: JSON.stringify(FALLON_PATH) })).json).toEqual(
      pathGet.json,
    );
  });

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

describe("GET /status/v2/point with the SDKs' other members", () => {
  it("takes datetime, ignored_types and weather as the C++ SDK sends them", async () => {
    const point = { latitude: 39.6, longitude: -118.6, buffer: 0.0 };
    const during = await statusGet("point", { ...point, datetime: JUNE_2030 });
    expect(during.json.data.advisory_color).toBe("red");
    const ignored = await statusGet("point", { ...point, datetime: JUNE_2030, ignored_types: "tfr" });
    expect(ignored.json.data.advisories.some((a: any) => a.type === "tfr")).toBe(false);
    const weather = await statusGet("point", { ...point, weather: "false" });
    expect(Object.keys(weather.json.data).sort()).toEqual([
      "advisories",
      "advisory_color",
      "max_safe_distance",
    ]);
  });
});
