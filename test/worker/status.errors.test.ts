import { describe, expect, it } from "vitest";
import { FALLON } from "./airspaceFixtures";
import { airspaceSession } from "./airspaceRequests";

const { status } = airspaceSession();

describe("GET /status/v2/point", () => {
  it("refuses unknown types (naming the valid ones), a buffer out of range and a missing coordinate", async () => {
    const unknown = await status({ ...FALLON, types: "airport,castle" });
    expect(unknown.status).toBe(400);
    expect(unknown.json.data.errors[0].name).toBe("types");
    expect(unknown.json.data.errors[0].message).toContain("valid: non_geo, laanc, controlled_airspace");
    const far = await status({ ...FALLON, buffer: 20_001 });
    expect(far.status).toBe(400);
    expect(far.json.data.errors.map((e: any) => e.name)).toEqual(["buffer"]);
    const missing = await status({ latitude: 39.4 });
    expect(missing.status).toBe(400);
    expect(missing.json.data.errors.map((e: any) => e.name)).toEqual(["longitude"]);
    const outside = await status({ latitude: 91, longitude: 0 });
    expect(outside.json.data.errors.map((e: any) => e.name)).toEqual(["latitude"]);
  });
});
