import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importElevation } from "../../tools/elevation/importer";
import type { Target } from "../../tools/lib/target";
import { EMBEDDED_ELEVATION } from "../../tools/seed/elevation";
import { sampleCarpet } from "../../worker/domain/elevation/carpet";
import { EMPTY_CONTEXT, mapLayers } from "../../worker/domain/map/layers";
import { terrainPlan } from "../../worker/domain/map/terrain";
import { fitFrame } from "../../worker/domain/map/view";
import { renderMapSvg } from "../../worker/pages/map/svg";
import { storeOf } from "../domain/elevationFixtures";

/**
 * The map's ground from the real samples the embedded default serves (Jacksboro 3″, Gothenburg 3″,
 * Luxembourg 30″), imported as `npm start` imports them: each shows its relief, and drawing it
 * stays a few milliseconds of CPU.
 */

class MemoryTarget implements Target {
  readonly remote = false;
  readonly objects = new Map<string, Uint8Array>();
  async execute(): Promise<void> {}
  async query<T>(): Promise<T[]> {
    return [];
  }
  async putObject(key: string, body: Uint8Array | string): Promise<void> {
    this.objects.set(key, typeof body === "string" ? new TextEncoder().encode(body) : body);
  }
  async getObject(key: string): Promise<Uint8Array | null> {
    return this.objects.get(key) ?? null;
  }
  async close(): Promise<void> {}
}

const target = new MemoryTarget();
beforeAll(async () => {
  await importElevation(target, EMBEDDED_ELEVATION, { line: () => {}, progress: () => {} });
}, 120_000);
afterAll(() => target.objects.clear());

/** The ground layer of a 640×480 map around a point, `span` degrees of latitude tall. */
async function groundAt(lat: number, lng: number, span: number) {
  const frame = fitFrame(
    { minLat: lat - span / 2, maxLat: lat + span / 2, minLng: lng - span / 2, maxLng: lng + span / 2 },
    { width: 640, aspect: 0.75, padding: 0 },
  );
  const { coverage, load } = storeOf(target.objects);
  const plan = terrainPlan(frame);
  const carpet = await sampleCarpet(coverage, plan, load);
  const sourceStep = coverage.finestStep(
    frame.box.minLat,
    frame.box.minLng,
    frame.box.maxLat,
    frame.box.maxLng,
  );
  return {
    frame,
    plan,
    carpet,
    sourceStep,
    layers: mapLayers(
      frame,
      { ...EMPTY_CONTEXT, terrain: { plan, carpet, sourceStep } },
      new Map(),
      "metric",
    ),
  };
}

describe("the map's ground from the embedded elevation", () => {
  it.each([
    ["Jacksboro, Tennessee (the Cumberland escarpment)", 36.33, -84.18, 0.04, 200],
    ["Gothenburg", 57.67, 11.965, 0.03, 40],
    ["Luxembourg (30″ source)", 49.75, 6.1, 0.2, 100],
  ])("shows the relief around %s", async (_, lat, lng, span, minRelief) => {
    const { layers } = await groundAt(lat, lng, span);
    const t = layers.terrain!;
    expect(t.high - t.low).toBeGreaterThan(minRelief);
    expect(t.contours.length).toBeGreaterThanOrEqual(4);
    // Shaded slopes on both sides of the light: some samples darkened, some left white.
    const shades = [...t.shade];
    expect(shades.filter((v) => v > 0 && v < 230).length).toBeGreaterThan(shades.length / 200);
    expect(shades.filter((v) => v === 255).length).toBeGreaterThan(0);
  });

  it("draws nothing where no tile covers the view", async () => {
    const { layers } = await groundAt(0.5, -30.5, 0.03);
    expect(layers.terrain).toBeUndefined();
  });

  it("costs a few milliseconds of CPU to lay out and draw (measured in-process)", async () => {
    const { frame, plan, carpet, sourceStep } = await groundAt(36.33, -84.18, 0.04);
    const context = { ...EMPTY_CONTEXT, terrain: { plan, carpet, sourceStep } };
    const draw = () =>
      renderMapSvg({
        layers: mapLayers(frame, context, new Map(), "metric"),
        area: "M0 0Z",
        markers: [],
        title: "t",
      });
    for (let i = 0; i < 5; i++) draw();
    const runs = 20;
    // CPU time, not wall time: the machine running the tests may be busy with other work.
    const start = process.cpuUsage();
    let bytes = 0;
    for (let i = 0; i < runs; i++) bytes = draw().length;
    const used = process.cpuUsage(start);
    const ms = (used.user + used.system) / 1000 / runs;
    console.log(`terrain layer and SVG: ${ms.toFixed(2)} ms a map, ${Math.round(bytes / 1024)} KiB`);
    expect(ms).toBeLessThan(25);
    expect(bytes).toBeLessThan(120_000);
  });
});
