import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FORMATS } from "../../tools/airspace/formats";
import { parseEd269Zones } from "../../tools/airspace/formats/ed269";
import { parseEd269, zoneEffect } from "../../worker/interuss/ed269";
import { runTool } from "./runTool";

const ROOT = path.resolve(import.meta.dirname, "../..");
const fixture = (name: string) => readFileSync(path.join(ROOT, "test/fixtures/interuss", name), "utf8");

describe("ED-269 importer", () => {
  it("reads InterUSS's Swiss CIS sample as restricted special-use airspace", () => {
    const parsed = parseEd269Zones(fixture("cis_source_sample_ed269.json"));
    expect(parsed.skipped.size).toBe(0);
    expect(parsed.features).toHaveLength(1);
    const [zone] = parsed.features;
    expect(zone).toMatchObject({
      sourceId: "LSXX",
      type: "special_use_airspace",
      name: "LSXX City Sample",
      floorM: 0,
      ceilingM: null,
      floorCode: "AGL",
      effectiveStart: null,
      effectiveEnd: null,
      source: "ed269",
      properties: {
        type: "restricted",
        ed269_restriction: "REQ_AUTHORISATION",
        reason: "AIR_TRAFFIC",
        phone: "0041221234567",
        url: "https://example.interuss.org/contact",
      },
    });
    expect(zone!.geometry.type).toBe("Polygon");
    expect((zone!.geometry as { coordinates: number[][][] }).coordinates[0]).toHaveLength(5);
  });

  it("reads circles, feet and time-bound applicability, and reports zones it cannot use", () => {
    const parsed = parseEd269Zones(fixture("ed269_constructed_zones.json"));
    expect(parsed.features.map((f) => [f.sourceId, f.properties.type])).toEqual([
      ["WSK-P1", "prohibited"],
      ["WSK-C1", "conditional"],
    ]);
    const [circle, conditional] = parsed.features;
    expect(circle!.ceilingM).toBeCloseTo(152.4, 1);
    expect(circle!.properties.u_space_class).toBe("EUROCONTROL");
    // A 1 km circle drawn with 32 steps: every vertex 1 km from the centre.
    const ring = (circle!.geometry as { coordinates: [number, number][][] }).coordinates[0]!;
    expect(ring.length).toBe(33);
    for (const [lng, lat] of ring) {
      const dx = (lng - 8.55) * 111_320 * Math.cos((47.45 * Math.PI) / 180);
      const dy = (lat - 47.45) * 110_574;
      expect(Math.hypot(dx, dy)).toBeGreaterThan(990);
      expect(Math.hypot(dx, dy)).toBeLessThan(1010);
    }
    expect(conditional!.effectiveStart).toBe(Date.parse("2030-06-01T00:00:00Z"));
    expect(conditional!.effectiveEnd).toBe(Date.parse("2030-06-02T00:00:00Z"));
    expect([...parsed.skipped.keys()]).toEqual([expect.stringContaining("restriction MAYBE")]);
  });

  it("refuses a document that is not ED-269", () => {
    expect(() => parseEd269Zones('{"type":"FeatureCollection","features":3}')).toThrow(/not ED-269/);
    expect(() => parseEd269([])).toThrow(/not ED-269/);
  });

  it("decides Block for zones that need an authorization and Advise for the others", () => {
    expect(zoneEffect("PROHIBITED")).toBe("Block");
    expect(zoneEffect("REQ_AUTHORISATION")).toBe("Block");
    expect(zoneEffect("CONDITIONAL")).toBe("Advise");
    expect(zoneEffect("NO_RESTRICTION")).toBe("Advise");
  });

  it("is registered as the ed269 format", () => {
    const format = FORMATS.find((f) => f.name === "ed269");
    expect(format?.parse(fixture("cis_source_sample_ed269.json"), {}).features).toHaveLength(1);
  });
});

describe("npm run interuss:token", () => {
  const token = (args: string[], extra: Record<string, string> = {}) =>
    runTool("tools/interussToken.ts", args, { env: { ...process.env, ...extra } });

  it("prints a one-hour token with the scopes as its last line", async () => {
    const res = await token([
      "--scope",
      "interuss.geospatial_map.query",
      "--scope",
      "interuss.flight_planning.plan",
    ]);
    expect(res.code).toBe(0);
    const last = res.stdout.trim().split("\n").at(-1)!;
    const claims = JSON.parse(Buffer.from(last.split(".")[1]!, "base64url").toString("utf8"));
    expect(claims).toMatchObject({
      iss: "windsock-development-interuss",
      aud: "127.0.0.1",
      scope: "interuss.geospatial_map.query interuss.flight_planning.plan",
    });
    expect(claims.exp - claims.iat).toBe(3600);
  });

  it("refuses unknown flags, no scope, and production", async () => {
    expect((await token(["--scope", "x", "--bogus"])).code).toBe(2);
    expect((await token([])).code).toBe(2);
    const production = await token(["--scope", "x"], { ENVIRONMENT: "production" });
    expect(production.code).toBe(1);
    expect(production.stderr).toContain("production");
  });
});
