import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runTool } from "./runTool";

const stateDir = mkdtempSync(path.join(os.tmpdir(), "windsock-airspace-cli-"));

const airspaceImport = (...args: string[]) =>
  runTool("tools/airspace/import.ts", args, { env: { ...process.env, STATE_DIR: stateDir } });

afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

describe("npm run airspace:import", () => {
  it("explains itself with --help, listing every format", async () => {
    const { code, stdout } = await airspaceImport("--help");
    expect(code).toBe(0);
    for (const format of [
      "ourairports",
      "faa-facility-map",
      "faa-class-airspace",
      "faa-tfr",
      "openaip",
      "geojson",
    ])
      expect(stdout).toContain(format);
    expect(stdout).toContain("--remote");
  });

  it("says what to do when the format or the file is wrong", async () => {
    const unknown = await airspaceImport("kml", "x.kml");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown format "kml": use one of ourairports, faa-facility-map/);
    const missing = await airspaceImport("faa-tfr", "no-such-file.geojson");
    expect(missing.stderr).toMatch(/cannot read no-such-file.geojson/);
    const noFile = await airspaceImport("faa-tfr");
    expect(noFile.stderr).toMatch(/give the file to load/);
  });

  it("loads a file into the local state with progress, and loading it again replaces it", async () => {
    const file = "test/fixtures/airspace/faa_uas_facility_map.geojson";
    const first = await airspaceImport("faa-facility-map", file);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("0 features, 2 facility maps (11 cells)");
    expect(first.stdout).toContain("skipped 1: not a 30″ grid cell polygon");
    expect(first.stdout).toMatch(/2 facility maps, 11 cells: \d+\/\d+ statements/);
    expect(first.stdout).toContain(
      'loaded dataset "faa-facility-map-faa_uas_facility_map" into the local database',
    );
    await airspaceImport("faa-facility-map", file);

    process.env.STATE_DIR = stateDir;
    const { openTarget } = await import("../../tools/lib/target");
    const target = await openTarget({ remote: false });
    try {
      const [cells] = await target.query<{ n: number }>("SELECT count(*) AS n FROM facility_map_cells");
      const [maps] = await target.query<{ n: number }>("SELECT count(*) AS n FROM facility_maps");
      expect([cells!.n, maps!.n]).toEqual([11, 2]);
    } finally {
      await target.close();
    }
  }, 120_000);
});
