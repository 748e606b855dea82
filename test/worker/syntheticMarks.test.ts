import { beforeAll, describe, expect, it } from "vitest";
import { type AirportWithRunways, embeddedControlledAirspace } from "../../tools/airspace/controlledAirspace";
import { loadDataset } from "../../tools/airspace/dataset";
import { isSynthetic, SYNTHETIC_MARK, SYNTHETIC_MEANING } from "../../worker/domain/airspace/synthetic";
import type { MapContext } from "../../worker/domain/map/layers";
import { liveMap } from "../../worker/pages/live";
import { MAP_SYNTHETIC_NOTE } from "../../worker/pages/map/svg";
import { d1Target, loadAirspaceFixtures, loadSfoControlledAirspace } from "./airspaceFixtures";
import { call, createAccount, type TestAccount } from "./helpers";

/**
 * Generated data is never shown as fact (#24): every generated record, advisory and facility-map
 * cell says `synthetic` in the API, and every page a pilot sees marks it and says what it means.
 */

const NASR_CYCLE = "FAA NASR 28-day cycle effective 2026-05-14";
/** Pine Bluff (PBF): a Class E surface area, which the FAA's Class B/C/D file does not hold. */
const PINE_BLUFF = {
  ident: "KPBF",
  type: "medium_airport",
  name: "Grider Field",
  latitude: 34.1731,
  longitude: -91.9356,
  elevationFt: 206,
  iata: "PBF",
  icao: "KPBF",
  localCode: "PBF",
  city: "Pine Bluff",
  url: null,
  country: "USA",
  runways: [
    [
      [-91.9385, 34.1658],
      [-91.9327, 34.1804],
    ],
  ],
} satisfies AirportWithRunways;

const square = (lng: number, lat: number, half: number) => ({
  type: "Polygon",
  coordinates: [
    [
      [lng - half, lat - half],
      [lng + half, lat - half],
      [lng + half, lat + half],
      [lng - half, lat + half],
      [lng - half, lat - half],
    ],
  ],
});
const SFO_SQUARE = square(-122.375, 37.619, 0.0045);

let account: TestAccount;

beforeAll(async () => {
  await loadAirspaceFixtures();
  await loadSfoControlledAirspace();
  const { synthetic } = embeddedControlledAirspace([PINE_BLUFF], []);
  await loadDataset(d1Target, { name: "pbf", format: "generated", version: "test", ...synthetic }, () => {});
  account = await createAccount("synthetic marks");
});

/** Every advisory or record that carries generated data says so; the FAA's say their cycle. */
function expectMarked(items: { id: string; properties: Record<string, unknown> }[]) {
  for (const item of items) {
    const generated =
      item.id.startsWith("facility_map:") ||
      item.id.startsWith("pbf:") ||
      item.properties.ceiling !== undefined;
    if (generated) expect(isSynthetic(item.properties), item.id).toBe(true);
    if (item.id.startsWith("faa:")) expect(item.properties.source, item.id).toBe(NASR_CYCLE);
  }
}

describe("generated data in the API", () => {
  it("status at SFO: each facility-map cell says synthetic, the Class B says the NASR cycle", async () => {
    const res = await call("/status/v2/point?latitude=37.619&longitude=-122.375&buffer=500", {
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(200);
    const advisories = res.json.data.advisories as {
      id: string;
      name: string;
      properties: Record<string, unknown>;
    }[];
    const cells = advisories.filter((a) => a.id.startsWith("facility_map:SFO:"));
    expect(cells.length).toBeGreaterThan(0);
    for (const cell of cells)
      expect(cell).toMatchObject({ name: "SAN FRANCISCO CLASS B", properties: { source: "synthetic" } });
    expectMarked(advisories);
  });

  it("advisories over SFO: the real Class B carries its cycle and says its LAANC ceilings are synthetic", async () => {
    const res = await call("/advisory/v2/airspace", {
      method: "POST",
      apiKey: account.apiKey,
      body: { geometry: SFO_SQUARE, rulesets: "usa_part_107" },
    });
    expect(res.status).toBe(200);
    const advisories = res.json.data.advisories as {
      id: string;
      last_updated: string;
      properties: Record<string, unknown>;
    }[];
    const classB = advisories.find((a) => a.id.startsWith("faa:SFO-class-b"))!;
    expect(classB.properties).toMatchObject({
      source: NASR_CYCLE,
      facility_map_source: "synthetic",
      ceiling: 0,
    });
    expect(classB.last_updated).toMatch(/^2026-05-14T00:00:00/);
    expectMarked(advisories);
  });

  it("records at Pine Bluff: the generated Class E surface area says synthetic", async () => {
    const res = await call(
      `/airspace/v2/search?geometry=${encodeURIComponent(JSON.stringify(square(-91.9356, 34.1731, 0.01)))}&types=controlled_airspace`,
      { apiKey: account.apiKey },
    );
    expect(res.status).toBe(200);
    const records = res.json.data as { id: string; properties: Record<string, unknown> }[];
    expect(records.map((r) => [r.id, r.properties.airspace_classification, r.properties.source])).toEqual([
      ["pbf:KPBF-class-e2", "E", "synthetic"],
    ]);
  });
});

describe("generated data on the pages", () => {
  it("the deep-link page marks each synthetic advisory and cell, and says what the mark means", async () => {
    const created = await call("/deeplink/v1/create_flight", {
      method: "POST",
      apiKey: account.apiKey,
      body: { geometry: SFO_SQUARE, altitude: 60 },
    });
    expect(created.status).toBe(200);
    const link = new URL(new URL(created.json.data.link).searchParams.get("link")!);
    const page = await call(`${link.pathname}${link.search}`);
    expect(page.status).toBe(200);
    const items = [...page.text.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) => m[1]!);
    const marked = items.filter((li) =>
      li.includes(`<span class="badge synthetic">${SYNTHETIC_MARK}</span>`),
    );
    expect(marked.length).toBeGreaterThan(0);
    expect(marked.some((li) => li.includes("SAN FRANCISCO CLASS B"))).toBe(true);
    expect(page.text).toContain(SYNTHETIC_MEANING.replace(/'/g, "&#39;"));
    // The map: every facility-map cell is generated here, and each says so.
    const svg = page.text.match(/<svg[^>]*class="map"[\s\S]*?<\/svg>/)![0];
    const cells = [...svg.matchAll(/<rect class="facility-cell([^"]*)"[^>]*><title>([^<]*)<\/title>/g)];
    expect(cells.length).toBeGreaterThan(0);
    for (const [, classes, title] of cells) {
      expect(classes).toBe(" synthetic");
      expect(title).toContain(`(${SYNTHETIC_MARK})`);
    }
    expect(svg).toContain(MAP_SYNTHETIC_NOTE);
  });

  it("the live page's map hatches generated zones, marks generated cells and explains them; real ones it leaves", () => {
    const area = square(-91.9356, 34.1731, 0.002) as { type: "Polygon"; coordinates: [number, number][][] };
    const context: MapContext = {
      boundaries: [],
      airports: [],
      areas: [
        {
          id: "pbf:KPBF-class-e2",
          type: "controlled_airspace",
          name: "GRIDER FIELD CLASS E SURFACE AREA",
          geometry: square(-91.9356, 34.1731, 0.03) as never,
          synthetic: true,
        },
      ],
      facilityCells: [{ row: 4100, col: -11032, ceilingFt: 0, airportId: "PBF", synthetic: true }],
    };
    const marked = liveMap(area, context);
    expect(marked.synthetic).toBe(true);
    expect(marked.svg).toContain('class="synthetic-hatch"');
    expect(marked.svg).toContain(MAP_SYNTHETIC_NOTE);
    const real = liveMap(area, {
      ...context,
      areas: context.areas.map((a) => ({ ...a, synthetic: false })),
      facilityCells: context.facilityCells.map((c) => ({ ...c, synthetic: false })),
    });
    expect(real.synthetic).toBe(false);
    expect(real.svg).not.toContain(MAP_SYNTHETIC_NOTE);
    expect(real.svg).not.toContain("synthetic");
  });
});
