import { readFileSync } from "node:fs";
import path from "node:path";
import { VectorTile } from "@mapbox/vector-tile";
import { PbfReader } from "pbf";
import { PMTiles } from "pmtiles";
import { beforeAll, describe, expect, it } from "vitest";
import { embeddedAirports } from "../../tools/airspace/airportDatabase";
import { buildBasemap } from "../../tools/basemap/builder";
import { readOsmExtract } from "../../tools/basemap/osm";
import { writeArchive } from "../../tools/basemap/pmtilesWriter";
import { BytesSource, readArchiveSummary } from "../../tools/basemap/summary";
import { ROOT } from "../../tools/lib/config";
import { readStreetTile, streetsLayer } from "../../worker/domain/map/streets";
import { fitFrame } from "../../worker/domain/map/view";

/** The PMTiles writer and the embedded basemap, read back by the `pmtiles` library the worker uses. */

const open = (bytes: Uint8Array) => new PMTiles(new BytesSource(bytes));
const decode = (data: ArrayBuffer) => new VectorTile(new PbfReader(new Uint8Array(data)));
const bytesOf = (text: string) => new TextEncoder().encode(text);

describe("writeArchive", () => {
  const metadata = { name: "t", attribution: "test data", vector_layers: [] };

  it("writes a PMTiles v3 archive pmtiles reads: header, metadata, each tile's bytes", async () => {
    const archive = writeArchive(
      [
        { z: 0, x: 0, y: 0, data: bytesOf("zero") },
        { z: 1, x: 1, y: 0, data: bytesOf("one-east") },
        { z: 2, x: 3, y: 3, data: bytesOf("two-corner") },
      ],
      { metadata, bounds: [-180, -85, 180, 85], center: [11.97, 57.7, 1] },
    );
    const reader = open(archive);
    const header = await reader.getHeader();
    expect(header).toMatchObject({
      specVersion: 3,
      minZoom: 0,
      maxZoom: 2,
      tileType: 1,
      tileCompression: 2,
      internalCompression: 2,
      clustered: true,
      numAddressedTiles: 3,
      numTileContents: 3,
      minLon: -180,
      maxLat: 85,
      centerLon: 11.97,
      centerLat: 57.7,
      centerZoom: 1,
    });
    expect(await reader.getMetadata()).toEqual(metadata);
    const text = async (z: number, x: number, y: number) => {
      const tile = await reader.getZxy(z, x, y);
      return tile && new TextDecoder().decode(tile.data);
    };
    expect(await text(0, 0, 0)).toBe("zero");
    expect(await text(1, 1, 0)).toBe("one-east");
    expect(await text(2, 3, 3)).toBe("two-corner");
    expect(await text(1, 0, 0)).toBeUndefined();
  });

  it("stores identical tiles once and neighbours in one run", async () => {
    const same = bytesOf("ocean");
    const tiles = [];
    for (let x = 0; x < 4; x++) for (let y = 0; y < 4; y++) tiles.push({ z: 2, x, y, data: same });
    tiles.push({ z: 2, x: 1, y: 1, data: bytesOf("land") }, { z: 0, x: 0, y: 0, data: bytesOf("world") });
    tiles.splice(5, 1); // 2/1/1 is land, not ocean
    const archive = writeArchive(tiles, { metadata, bounds: [-180, -85, 180, 85], center: [0, 0, 0] });
    const header = await open(archive).getHeader();
    expect(header.numAddressedTiles).toBe(17);
    expect(header.numTileContents).toBe(3);
    expect(header.numTileEntries).toBeLessThan(17);
    const reader = open(archive);
    for (const t of tiles)
      expect(new TextDecoder().decode((await reader.getZxy(t.z, t.x, t.y))!.data)).toBe(
        new TextDecoder().decode(t.data),
      );
  });

  it("moves the entries to leaf directories when the root would pass the first 16 KiB", async () => {
    // Tiles of scattered lengths that gzip cannot shrink (xorshift from a fixed seed): a
    // directory that compresses poorly, as real ones do.
    let seed = 1;
    const next = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) & 0xff;
    };
    const tiles = [];
    for (let x = 0; x < 128; x++)
      for (let y = 0; y < 256; y++)
        tiles.push({
          z: 8,
          x,
          y,
          data: Uint8Array.from({ length: 1 + (((next() << 8) | next()) % 300) }, next),
        });
    const archive = writeArchive(tiles, { metadata, bounds: [-180, -85, 180, 85], center: [0, 0, 8] });
    const reader = open(archive);
    const header = await reader.getHeader();
    expect(header.leafDirectoryLength).toBeGreaterThan(0);
    expect(header.rootDirectoryOffset + header.rootDirectoryLength).toBeLessThanOrEqual(16_384);
    for (const i of [0, 1, 4097, 20_000, tiles.length - 1]) {
      const { z, x, y, data } = tiles[i]!;
      expect(new Uint8Array((await reader.getZxy(z, x, y))!.data)).toEqual(data);
    }
  });

  it("refuses to write no tiles", () => {
    expect(() => writeArchive([], { metadata, bounds: [0, 0, 1, 1], center: [0, 0, 0] })).toThrow(
      /at least one/,
    );
  });
});

describe("buildBasemap", () => {
  let archive: Uint8Array;
  beforeAll(async () => {
    archive = buildBasemap(await embeddedAirports(), () => {}, { worldMaxZoom: 1, maxZoom: 6 }).archive;
  }, 60_000);

  it("holds the Protomaps layers from the real data, credited in its metadata", async () => {
    const reader = open(archive);
    const header = await reader.getHeader();
    expect([header.minZoom, header.maxZoom]).toEqual([0, 6]);
    const metadata = (await reader.getMetadata()) as { attribution: string; vector_layers: { id: string }[] };
    expect(metadata.attribution).toContain("Natural Earth");
    expect(metadata.vector_layers.map((l) => l.id)).toEqual([
      "earth",
      "water",
      "boundaries",
      "pois",
      "places",
    ]);
    expect(await readArchiveSummary(archive)).toMatch(
      /PMTiles v3, zooms 0–6, \d+ tiles, attribution: Natural Earth/,
    );

    const world = decode((await reader.getZxy(0, 0, 0))!.data);
    const waterKinds = new Set(
      Array.from(
        { length: world.layers.water!.length },
        (_, i) => world.layers.water!.feature(i).properties.kind,
      ),
    );
    expect(waterKinds).toContain("ocean");
    expect(world.layers.earth!.length).toBeGreaterThan(0);
    expect(world.layers.pois).toBeUndefined();
  });

  it("tiles Gothenburg's coast at zoom 6 with land, sea and Sweden's borders", async () => {
    // 11.97 E, 57.7 N at zoom 6.
    const tile = decode((await open(archive).getZxy(6, 34, 18))!.data);
    expect(tile.layers.earth!.length).toBeGreaterThan(0);
    expect(tile.layers.water!.length).toBeGreaterThan(0);
    const kinds = Array.from(
      { length: tile.layers.boundaries!.length },
      (_, i) => tile.layers.boundaries!.feature(i).properties.kind,
    );
    expect(kinds).toContain("country");
  });

  it("tiles nothing beyond the world's zooms far from the embedded areas", async () => {
    expect(await open(archive).getZxy(6, 2, 30)).toBeUndefined();
  });
});

describe("an OpenStreetMap extract (West Oakland, a real sample: data/basemap/SOURCE.md)", () => {
  const fixture = readFileSync(path.join(ROOT, "test/fixtures/basemap/west-oakland.osm.pbf"));
  let archive: Uint8Array;
  beforeAll(async () => {
    const extract = readOsmExtract(fixture);
    archive = buildBasemap(await embeddedAirports(), () => {}, {
      worldMaxZoom: 1,
      extracts: [extract],
      embeddedAreas: false,
    }).archive;
  }, 60_000);
  // Willow Street and 7th Street, West Oakland, at the archive's deepest zoom.
  const AT = { z: 12, x: 656, y: 1582 };

  it("reads its streets with their names and kinds, and its box", () => {
    const extract = readOsmExtract(fixture);
    const names = extract.layers.roads.features.map((f) => f.properties?.name);
    expect(names).toContain("Willow Street");
    expect(names).toContain("7th Street");
    const kinds = new Set(extract.layers.roads.features.map((f) => f.properties?.kind));
    expect(kinds).toContain("minor_road");
    expect(extract.counts.roads).toBeGreaterThan(10);
    const [west, south, east, north] = extract.bounds;
    expect(west).toBeCloseTo(-122.3143, 3);
    expect(south).toBeCloseTo(37.804, 3);
    expect(east).toBeCloseTo(-122.2908, 3);
    expect(north).toBeCloseTo(37.8176, 3);
  });

  it("refuses a file that is no .osm.pbf, saying what to give", () => {
    expect(() => readOsmExtract(bytesOf("<osm version='0.6'></osm>"))).toThrow(/give an \.osm\.pbf file/);
  });

  it("tiles its roads into the basemap at zoom 12, credited to OpenStreetMap", async () => {
    const reader = open(archive);
    expect((await reader.getHeader()).maxZoom).toBe(12);
    const metadata = (await reader.getMetadata()) as { attribution: string; vector_layers: { id: string }[] };
    expect(metadata.attribution).toContain("OpenStreetMap contributors");
    expect(metadata.vector_layers.map((l) => l.id)).toContain("roads");
    const tile = decode((await reader.getZxy(AT.z, AT.x, AT.y))!.data);
    const roads = tile.layers.roads!;
    const names = Array.from({ length: roads.length }, (_, i) => roads.feature(i).properties.name);
    expect(names).toContain("Willow Street");
  });

  it("draws as the pages' SVG does: the streets and their names in a frame over West Oakland", async () => {
    const data = (await open(archive).getZxy(AT.z, AT.x, AT.y))!.data;
    const features = readStreetTile(AT, data);
    const frame = fitFrame(
      { minLng: -122.306, minLat: 37.808, maxLng: -122.299, maxLat: 37.813 },
      { width: 800, aspect: 0.7, padding: 0 },
    );
    const layer = streetsLayer(frame, features)!;
    const named = layer.roads.filter((r) => r.name === "Willow Street");
    expect(named.length).toBeGreaterThan(0);
    expect(named[0]!.d).toMatch(/^M[\d.-]+ [\d.-]+ L/);
    expect(named[0]!.length).toBeGreaterThan(100);
  });
});

describe("readArchiveSummary", () => {
  it("refuses a file that is no PMTiles archive", async () => {
    await expect(readArchiveSummary(bytesOf("not an archive ".repeat(2000)))).rejects.toThrow(/magic number/);
  });
});
