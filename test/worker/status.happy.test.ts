import { describe, expect, it } from "vitest";
import statusFixture from "../fixtures/client-fixtures/status_get_point_success.json";
import { FALLON } from "./airspaceFixtures";
import { airspaceSession } from "./airspaceRequests";

const { status } = airspaceSession();

describe("GET /status/v2/point", () => {
  it("returns controlled airspace split into facility-map cells, colored by the rules that apply there", async () => {
    const res = await status({ ...FALLON, types: "controlled_airspace", buffer: 0 });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ max_safe_distance: 0, advisory_color: "orange" });
    expect(res.json.data.advisories).toEqual([
      {
        id: "facility_map:NFL:4737:-14255",
        name: "FALLON CLASS D",
        last_updated: "2024-12-05T00:00:00.000Z",
        latitude: 39.4791667,
        longitude: -118.7875,
        distance: 0,
        type: "controlled_airspace",
        city: "Fallon",
        state: "Nevada",
        country: "USA",
        properties: expect.objectContaining({
          airspace_class: "d",
          ceiling: 400,
          laanc: true,
          authorization: true,
          airport_id: "NFL",
          icao: "KNFL",
          auto_auth_ceiling_m_agl: 121.92,
          source: "faa",
        }),
        color: "orange",
      },
    ]);
  });

  it("lists every cell within the buffer, nearest first", async () => {
    const res = await status({ ...FALLON, types: "controlled_airspace", buffer: 1000 });
    const cells = res.json.data.advisories as any[];
    expect(cells.length).toBe(9);
    expect(new Set(cells.map((c) => c.properties.ceiling))).toEqual(new Set([0, 100, 200, 300, 400]));
    expect(cells.map((c) => c.distance)).toEqual([...cells.map((c) => c.distance)].sort((a, b) => a - b));
  });

  it("gives the distance to the nearest advisory as max_safe_distance", async () => {
    const res = await status({ ...FALLON, types: "hospital,school,prison", buffer: 2000 });
    const advisories = res.json.data.advisories as any[];
    expect(advisories.map((a) => a.name)).toEqual(["Example Elementary School", "Example Regional Hospital"]);
    expect(res.json.data.max_safe_distance).toBe(advisories[0].distance);
    expect(res.json.data.max_safe_distance).toBeGreaterThan(200);
    expect(res.json.data.advisory_color).toBe("yellow");
    const clear = await status({ ...FALLON, types: "prison", buffer: 500 });
    expect(clear.json.data).toEqual({ max_safe_distance: 500, advisory_color: "green", advisories: [] });
  });

  it("returns controlled airspace without a facility map whole", async () => {
    const res = await status({
      latitude: 39.4991,
      longitude: -119.7681,
      types: "controlled_airspace",
      buffer: 100,
    });
    // Only this file's dataset: the worker files share one D1, where the LAANC suites load RNO's
    // real Class C and its generated facility map.
    const fromThisDataset = (res.json.data.advisories as any[]).filter((a) =>
      a.id.startsWith("faa-class-airspace:"),
    );
    expect(fromThisDataset.map((a) => [a.id, a.name])).toEqual([
      ["faa-class-airspace:8D1A6B6C-0003-4A7E-9C1F-RENOCLASSE2", "RENO CLASS E2"],
    ]);
  });

  it("includes time-bound airspace only inside the window", async () => {
    const point = { latitude: 39.6, longitude: -118.6, types: "tfr", buffer: 0 };
    expect((await status(point)).json.data.advisories).toEqual([]);
    const during = await status({ ...point, start: "2030-06-01T15:00:00Z", end: "2030-06-01T16:00:00Z" });
    expect(during.json.data.advisories[0]).toMatchObject({ type: "tfr", color: "red" });
  });

  it("answers in the shape the real clients parse", async () => {
    const res = await status({ ...FALLON, buffer: 3000 });
    const fixtureAdvisory = statusFixture.data.advisories[0] as Record<string, unknown>;
    const clientKeys = [
      "id",
      "name",
      "last_updated",
      "latitude",
      "longitude",
      "distance",
      "properties",
      "type",
      "city",
      "state",
      "country",
      "color",
    ];
    for (const key of clientKeys) expect(fixtureAdvisory).toHaveProperty(key);
    for (const advisory of res.json.data.advisories)
      expect(Object.keys(advisory).sort()).toEqual([...clientKeys].sort());
    expect(Object.keys(res.json.data).sort()).toEqual(["advisories", "advisory_color", "max_safe_distance"]);
  });
});
