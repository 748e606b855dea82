import { describe, expect, it } from "vitest";
import { bowTie } from "../geometries";
import { FALLON_BOX, FALLON_TWO_CELLS_AREA, JUNE_2030, YOSEMITE_AREA } from "./airspaceFixtures";
import { airspaceSession } from "./airspaceRequests";
import { CPP_TYPES_READING_PROPERTIES, expectDecodable } from "./airspaceSdk";
import { call } from "./helpers";

const { session, search, searchByBody, get } = airspaceSession();

describe("GET /airspace/v2/{id}", () => {
  it("returns one record with its geometry, place and the properties the C++ decoder reads", async () => {
    const res = await get("/airspace/v2/ourairports:KNFL");
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      id: "ourairports:KNFL",
      name: "Fallon Naval Air Station",
      type: "airport",
      country: "USA",
      state: "Nevada",
      city: "Fallon",
      geometry: { type: "Point", coordinates: [-118.7009964, 39.41659927] },
      rules: [],
      properties: {
        icao: "KNFL",
        iata: "NFL",
        faa: "NFL",
        elevation: 3934,
        source: "ourairports",
        // Not in the data: said to be unknown, never made up.
        paved: null,
        phone: null,
        tower: null,
        runways: null,
        longest_runway: null,
        use: null,
      },
    });
    expectDecodable(res.json.data);
  });

  it("finds ids that hold a slash, written raw as the C++ SDK does or percent-encoded", async () => {
    const raw = await get("/airspace/v2/faa-tfr:0/1234-1-FDC-F");
    expect(raw.status, raw.text).toBe(200);
    expect(raw.json.data).toMatchObject({
      id: "faa-tfr:0/1234-1-FDC-F",
      type: "tfr",
      effective_start: "2030-06-01T14:00:00.000Z",
      properties: {
        url: expect.stringContaining("tfr.faa.gov"),
        notam_reason: null,
        type: expect.any(String),
      },
    });
    const encoded = await get(`/airspace/v2/${encodeURIComponent("faa-tfr:0/1234-1-FDC-F")}`);
    expect(encoded.json.data).toEqual(raw.json.data);
  });
});

describe("GET /airspace/v2/list", () => {
  it("returns the records asked for, in that order, leaving out unknown ids", async () => {
    const res = await get("/airspace/v2/list?ids=ourairports:00NV,ourairports:ZZZZ,ourairports:KNFL");
    expect(res.status).toBe(200);
    expect(res.json.data.map((r: any) => r.id)).toEqual(["ourairports:00NV", "ourairports:KNFL"]);
    expect(res.json.data[0]).toMatchObject({
      type: "heliport",
      properties: { faa: "00NV", phone: null, usage: null },
    });
    res.json.data.forEach(expectDecodable);
  });
});

describe("GET /airspace/v2/search", () => {
  it("finds what reaches the geometry, nearest first, each with its decodable properties", async () => {
    const res = await search({ geometry: JSON.stringify(FALLON_BOX), full: true });
    expect(res.status).toBe(200);
    const records = res.json.data as any[];
    const types = new Set(records.map((r) => r.type));
    for (const type of [
      "airport",
      "heliport",
      "controlled_airspace",
      "school",
      "hospital",
      "prison",
      "power_plant",
      "emergency",
    ])
      expect(types, type).toContain(type);
    for (const record of records) {
      expectDecodable(record);
      expect(record.geometry).toBeTypeOf("object");
    }
    // Every record of a type the C++ decoder reads properties of carries them.
    expect(records.filter((r) => CPP_TYPES_READING_PROPERTIES.includes(r.type)).length).toBeGreaterThan(5);
    // The TFR of June 2030 is not in effect now.
    expect(types.has("tfr")).toBe(false);
  });

  it("is the same data the advisories use: every advisory of the area is a record of the search", async () => {
    const advisories = await call("/advisory/v1/airspace", {
      method: "POST",
      apiKey: session.apiKey,
      body: { geometry: FALLON_TWO_CELLS_AREA, rulesets: "usa_part_107,usa_advisories" },
    });
    const records = await searchByBody({ geometry: FALLON_TWO_CELLS_AREA });
    const ids = new Set(records.json.data.map((r: any) => r.id));
    expect(advisories.json.data.advisories.length).toBeGreaterThan(2);
    for (const advisory of advisories.json.data.advisories) expect(ids, advisory.name).toContain(advisory.id);
  });

  it("filters by types, ignored_types, time and buffer", async () => {
    const geometry = JSON.stringify(FALLON_BOX);
    const schools = await search({ geometry, types: "school,hospital" });
    expect(new Set(schools.json.data.map((r: any) => r.type))).toEqual(new Set(["school", "hospital"]));
    const ignored = await search({ geometry, ignored_types: "airport,heliport" });
    expect(ignored.json.data.some((r: any) => r.type === "airport" || r.type === "heliport")).toBe(false);
    expect(ignored.json.data.length).toBeGreaterThan(0);
    const june = await search({ geometry, types: "tfr", datetime: JUNE_2030 });
    expect(june.json.data.map((r: any) => r.name)).toEqual(["FALLON, NV, Special Security Instructions"]);
    const fire = await search({ geometry, types: "wildfire", datetime: "2030-07-02T00:00:00Z" });
    expect(fire.json.data).toMatchObject([
      { name: "Example Fire", properties: { date_effective: "2030-07-01T00:00:00.000Z" } },
    ]);
    expect((await search({ geometry, types: "wildfire" })).json.data).toEqual([]);
    // About 2.4 km east of the hospital: found only with a buffer that reaches it.
    const east = JSON.stringify({
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
    });
    expect((await search({ geometry: east, types: "hospital" })).json.data).toEqual([]);
    const reached = await search({ geometry: east, types: "hospital", buffer: 3000 });
    expect(reached.json.data.map((r: any) => r.name)).toEqual(["Example Regional Hospital"]);
    // Yosemite is ~100 km from Fallon: only a search around it finds it.
    const park = await search({ geometry: JSON.stringify(YOSEMITE_AREA), types: "park" });
    expect(park.json.data.map((r: any) => r.name)).toEqual(["Yosemite National Park"]);
  });

  it("pages with offset and limit (at most 100), and simplifies geometry (never drops it) with full=false", async () => {
    const geometry = JSON.stringify(FALLON_BOX);
    const all = (await search({ geometry })).json.data as any[];
    expect(all.length).toBeGreaterThan(4);
    const first = await search({ geometry, limit: 2 });
    const second = await search({ geometry, limit: 2, offset: 2 });
    expect([...first.json.data, ...second.json.data].map((r: any) => r.id)).toEqual(
      all.slice(0, 4).map((r) => r.id),
    );
    const bare = await search({ geometry, full: false, limit: 1 });
    // CONTRACT §11: the Kotlin decoder needs `geometry`; full=false gives the box around it.
    expect(bare.json.data[0].geometry.type).toBe("Polygon");
    expect(bare.json.data[0].geometry.coordinates[0]).toHaveLength(5);
    expect(bare.json.data[0].properties).toBeTypeOf("object");
    for (const [query, field] of [
      [{ geometry, limit: 101 }, "limit"],
      [{ geometry, limit: 0 }, "limit"],
      [{ geometry, offset: -1 }, "offset"],
      [{ geometry, buffer: 20_001 }, "buffer"],
      [{ geometry, types: "airport,volcano" }, "types"],
      [{ geometry, ignored_types: "volcano" }, "ignored_types"],
      [{ geometry, datetime: "yesterday" }, "datetime"],
      [{ geometry, full: "maybe" }, "full"],
      [{ geometry: "{not json" }, "geometry"],
      [{ geometry: JSON.stringify(bowTie) }, "geometry"],
      [{}, "geometry"],
    ] as const) {
      const res = await search(query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.json.data.errors.map((e: any) => e.name)).toEqual([field]);
    }
  });
});

describe("POST /airspace/v2/search", () => {
  it("answers exactly as the GET, for the geometry as an object or as text", async () => {
    const query = { types: "airport,controlled_airspace,school", buffer: 500, limit: 5, offset: 1 };
    const viaGet = await search({ ...query, geometry: JSON.stringify(FALLON_BOX) });
    const viaPost = await searchByBody({ ...query, geometry: FALLON_BOX });
    const viaText = await searchByBody({ ...query, geometry: JSON.stringify(FALLON_BOX) });
    expect(viaGet.status).toBe(200);
    expect(viaPost.json).toEqual(viaGet.json);
    expect(viaText.json).toEqual(viaGet.json);
    const arrays = await searchByBody({
      ...query,
      types: ["airport", "controlled_airspace", "school"],
      geometry: FALLON_BOX,
    });
    expect(arrays.json).toEqual(viaGet.json);
  });

  it("finds UK airspace around a path and a point", async () => {
    const path = await searchByBody({
      geometry: {
        type: "LineString",
        coordinates: [
          [-0.46, 51.47],
          [-0.44, 51.48],
        ],
      },
      types: "controlled_airspace,airport",
    });
    expect(path.json.data.map((r: any) => r.name)).toEqual(
      expect.arrayContaining(["LONDON CTR", "London Heathrow Airport"]),
    );
    const point = await searchByBody({
      geometry: { type: "Point", coordinates: [-0.45, 51.475] },
      types: "controlled_airspace",
      buffer: 100,
    });
    expect(point.json.data.map((r: any) => r.name)).toContain("LONDON CTR");
  });
});

describe("documentation", () => {
  it("documents the airspace routes with their record schema, and not the route for raw slashes", async () => {
    const doc = (await call("/openapi.json")).json;
    for (const path of ["/airspace/v2/search", "/airspace/v2/list", "/airspace/v2/{id}"])
      expect(Object.keys(doc.paths)).toContain(path);
    expect(Object.keys(doc.paths).some((p) => p.includes("{id{"))).toBe(false);
    expect(doc.paths["/airspace/v2/search"].post).toBeDefined();
    expect(doc.components.schemas.AirspaceRecord.required).toEqual(
      expect.arrayContaining(["id", "name", "type", "country", "properties", "rules"]),
    );
  });
});
