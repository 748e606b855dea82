import { describe, expect, it } from "vitest";
import { bowTie } from "../geometries";
import { FALLON_CELL_AREA } from "./airspaceFixtures";
import { airspaceSession } from "./airspaceRequests";

const { v2, v1 } = airspaceSession();

describe("POST /advisory/v2/airspace", () => {
  it("refuses unknown rulesets, broken geometry and a backwards window, naming the field", async () => {
    const unknown = await v2({ geometry: FALLON_CELL_AREA, rulesets: "usa_part_107,usa_part_108" });
    expect(unknown.status).toBe(400);
    expect(unknown.json.data.errors).toEqual([
      { name: "rulesets", message: "unknown ruleset usa_part_108; POST /rules/v1/ lists those for an area" },
    ]);
    for (const [body, field] of [
      [{ geometry: FALLON_CELL_AREA }, "rulesets"],
      [{ geometry: FALLON_CELL_AREA, rulesets: "" }, "rulesets"],
      [{ rulesets: "usa_part_107" }, "geometry"],
      [
        {
          geometry: bowTie,
          rulesets: "usa_part_107",
        },
        "geometry",
      ],
      [
        {
          geometry: FALLON_CELL_AREA,
          rulesets: "usa_part_107",
          start: "2030-06-02T00:00:00Z",
          end: "2030-06-01T00:00:00Z",
        },
        "end",
      ],
      [{ geometry: FALLON_CELL_AREA, rulesets: "usa_part_107", start: "tomorrow" }, "start"],
    ] as const) {
      const res = await v2(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.data.errors.map((e: any) => e.name)).toEqual([field]);
    }
  });
});

describe("GET /advisory/v1/airspace", () => {
  it("names geometry when it is not JSON, and rulesets when they are missing", async () => {
    const broken = await v1({ geometry: "{not json", rulesets: "usa_part_107" });
    expect(broken.status).toBe(400);
    expect(broken.json.data.errors[0].name).toBe("geometry");
    const missing = await v1({ geometry: JSON.stringify(FALLON_CELL_AREA) });
    expect(missing.status).toBe(400);
    expect(missing.json.data.errors[0].name).toBe("rulesets");
  });
});
