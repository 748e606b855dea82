import { describe, expect, it } from "vitest";
import {
  FALLON_PATH,
  FALLON_TWO_CELLS_AREA,
  JUNE_2030,
  SELLAFIELD_AREA,
  TFR_AREA,
  YOSEMITE_AREA,
} from "./airspaceFixtures";
import { airspaceSession } from "./airspaceRequests";
import { cppColor, expectDecodable } from "./airspaceSdk";

const { statusGet, statusPost } = airspaceSession();

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
