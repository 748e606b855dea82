import { beforeAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../tools/airspace/dataset";
import { FORMATS } from "../../tools/airspace/formats";
import { SCOPES } from "../../worker/interuss/auth";
import ed318Zones from "../fixtures/airspace/ed318_constructed_zones.json?raw";
import { d1Target } from "./airspaceFixtures";
import { airspaceSession } from "./airspaceRequests";
import { call, interussToken } from "./helpers";

/**
 * ED-318 zones imported as `npm run airspace:import -- ed318` loads them (the importer's own parse
 * and load, into the test D1) answer like any airspace: in status at a point, in advisories for
 * their time window, and in the InterUSS geospatial map with their limits converted to metres.
 */

const { status, v2 } = airspaceSession();
const STONEHENGE = { latitude: 51.1789, longitude: -1.8262 };

beforeAll(async () => {
  const parsed = FORMATS.find((f) => f.name === "ed318")!.parse(ed318Zones, {});
  await loadDataset(
    d1Target,
    { name: "ed318", format: "ed318", version: "test", features: parsed.features, facilityMaps: [] },
    () => {},
  );
});

describe("imported ED-318 zones", () => {
  it("show in status at a point inside, red under the UK's rules, with the zone's details", async () => {
    const res = await status({ ...STONEHENGE, buffer: 0 });
    expect(res.status, res.text).toBe(200);
    const zone = (res.json.data.advisories as any[]).find((a) => a.id === "ed318:WSK001");
    expect(zone).toMatchObject({
      name: "Stonehenge (test)",
      type: "special_use_airspace",
      distance: 0,
      color: "red",
      properties: expect.objectContaining({
        type: "prohibited",
        ed318_type: "PROHIBITED",
        phone: "+441234567890",
        source: "ed318",
      }),
    });
    expect(res.json.data.advisory_color).toBe("red");
    // 2 km away the 1 km circle is not there.
    const outside = await status({ latitude: 51.1969, longitude: -1.8262, buffer: 0 });
    expect((outside.json.data.advisories as any[]).map((a) => a.id)).not.toContain("ed318:WSK001");
  });

  it("count only within their limitedApplicability", async () => {
    const area = {
      type: "Polygon",
      coordinates: [
        [
          [-1.93, 51.23],
          [-1.92, 51.23],
          [-1.92, 51.24],
          [-1.93, 51.24],
          [-1.93, 51.23],
        ],
      ],
    };
    const ids = async (start: string, end: string) => {
      const res = await v2({ geometry: area, rulesets: "gbr_specific_category", start, end });
      expect(res.status, res.text).toBe(200);
      return (res.json.data.advisories as any[]).map((a) => a.id);
    };
    expect(await ids("2030-06-10T10:00:00Z", "2030-06-10T11:00:00Z")).toContain("ed318:WSK002");
    expect(await ids("2030-07-10T10:00:00Z", "2030-07-10T11:00:00Z")).not.toContain("ed318:WSK002");
  });

  it("block a flight in the geospatial map below their 400 ft ceiling, not above it", async () => {
    const token = await interussToken([SCOPES.geospatialMapQuery]);
    const blocked = async (altitudeM: number) => {
      const res = await call("/interuss/geospatial_map/v1/map/queries", {
        method: "POST",
        token,
        body: {
          checks: [
            {
              filter_sets: [
                {
                  position: {
                    location: { lat: STONEHENGE.latitude, lng: STONEHENGE.longitude },
                    altitude: { value: altitudeM, reference: "W84", units: "M" },
                  },
                  resulting_operational_impact: "Block",
                },
              ],
            },
          ],
        },
      });
      expect(res.status, res.text).toBe(200);
      return res.json.results[0].features_selection_outcome;
    };
    expect(await blocked(100)).toBe("Present");
    // 400 ft is 121.92 m.
    expect(await blocked(130)).toBe("Absent");
  });
});
