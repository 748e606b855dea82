import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { VectorTile } from "@mapbox/vector-tile";
import { PbfReader } from "pbf";
import { PMTiles } from "pmtiles";
import { beforeAll, describe, expect, it } from "vitest";
import { BytesSource } from "../../tools/basemap/summary";
import type { Bindings } from "../../worker/env";
import worker from "../../worker/index";
import { VECTOR_BASEMAP_SCRIPT } from "../../worker/pages/map/vectorBasemap";
import archiveBytes from "../fixtures/basemap/embedded-z6.pmtiles";
import { BASE, call, createAccount, type TestAccount } from "./helpers";

/**
 * The vector basemap route over a real archive: test/fixtures/basemap/embedded-z6.pmtiles, built by
 * `npm run basemap:build -- --world-max-zoom 1 --max-zoom 6 --out …` from Natural Earth, us-atlas
 * and OurAirports. Every test loads it under its own R2 key (the isolate keeps a reader per key).
 */

const archive = new Uint8Array(archiveBytes);
/** Jacksboro, Tennessee, at zoom 6 (-84.19, 36.33). */
const JACKSBORO = { z: 6, x: 17, y: 25 };

let keys = 0;
async function loadedKey(bytes: Uint8Array = archive): Promise<string> {
  const key = `basemap/test-${++keys}-${Date.now()}.pmtiles`;
  await env.ELEVATION.put(key, bytes);
  return key;
}

/** The R2 bucket, noting each read's range. */
function watchedBucket(reads: { offset?: number; length?: number }[]): R2Bucket {
  return new Proxy(env.ELEVATION, {
    get(target, name) {
      if (name !== "get") return Reflect.get(target, name);
      return (key: string, options?: R2GetOptions) => {
        const range = options?.range as { offset?: number; length?: number } | undefined;
        reads.push({ offset: range?.offset, length: range?.length });
        return target.get(key, options);
      };
    },
  });
}

async function request(path: string, settings: Partial<Bindings>) {
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request(`${BASE}${path}`), { ...env, ...settings }, ctx);
  await waitOnExecutionContext(ctx);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, bytes, json, text };
}

describe("GET /maps/v1/basemap.json", () => {
  it("answers the archive's TileJSON: its tiles here, its layers, its data's attribution", async () => {
    const res = await request("/maps/v1/basemap.json", { MAP_PMTILES_KEY: await loadedKey() });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect(res.json.tilejson).toBe("3.0.0");
    expect(res.json.tiles).toEqual([`${BASE}/maps/v1/basemap/{z}/{x}/{y}.mvt`]);
    expect(res.json.minzoom).toBe(0);
    expect(res.json.maxzoom).toBe(6);
    expect(res.json.vector_layers.map((l: { id: string }) => l.id)).toEqual([
      "earth",
      "water",
      "boundaries",
      "pois",
    ]);
    expect(res.json.attribution).toContain("Natural Earth");
    expect(res.json.attribution).toContain("OurAirports");
  });

  it("says no basemap is configured when MAP_PMTILES_KEY is unset, and which key to load when it is missing", async () => {
    const unset = await request("/maps/v1/basemap.json", { MAP_PMTILES_KEY: "" });
    expect(unset.status).toBe(404);
    expect(unset.json.status).toBe("fail");
    expect(unset.json.data.message).toContain("MAP_PMTILES_KEY");
    const key = `basemap/not-loaded-${Date.now()}.pmtiles`;
    const missing = await request("/maps/v1/basemap.json", { MAP_PMTILES_KEY: key });
    expect(missing.status).toBe(404);
    expect(missing.json.data.message).toContain(key);
    expect(missing.json.data.message).toContain("basemap:load");
    // Loaded afterwards, it is read: the failed first read is not kept.
    await env.ELEVATION.put(key, archive);
    const loaded = await request("/maps/v1/basemap.json", { MAP_PMTILES_KEY: key });
    expect(loaded.status, loaded.text).toBe(200);
  });
});

describe("GET /maps/v1/basemap/{z}/{x}/{y}.mvt", () => {
  it("answers the tile over Jacksboro as the archive holds it, through range reads only", async () => {
    const reads: { offset?: number; length?: number }[] = [];
    const key = await loadedKey();
    const { z, x, y } = JACKSBORO;
    const res = await request(`/maps/v1/basemap/${z}/${x}/${y}.mvt`, {
      MAP_PMTILES_KEY: key,
      ELEVATION: watchedBucket(reads),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.mapbox-vector-tile");
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect(res.headers.get("etag")).toMatch(/^"/);

    const expected = await new PMTiles(new BytesSource(archive)).getZxy(z, x, y);
    expect(res.bytes).toEqual(new Uint8Array(expected!.data));
    const tile = new VectorTile(new PbfReader(res.bytes));
    expect(Object.keys(tile.layers).sort()).toEqual(["boundaries", "earth", "pois", "water"]);
    const kinds = new Set(
      Array.from(
        { length: tile.layers.boundaries!.length },
        (_, i) => tile.layers.boundaries!.feature(i).properties.kind,
      ),
    );
    expect(kinds).toEqual(new Set(["region", "county"]));
    const airports = Array.from(
      { length: tile.layers.pois!.length },
      (_, i) => tile.layers.pois!.feature(i).properties,
    );
    expect(airports.every((a) => a.kind === "aerodrome")).toBe(true);
    expect(airports.map((a) => a.ref)).toContain("KTYS");

    // The header and root directory in one 16 KiB read, then the tile: never the whole object.
    expect(reads.length).toBeGreaterThanOrEqual(2);
    for (const read of reads) {
      expect(read.offset).toBeTypeOf("number");
      expect(read.length).toBeLessThanOrEqual(16_384);
    }
    expect(reads[0]).toEqual({ offset: 0, length: 16_384 });
  });

  it("reads a replaced archive, not the header and directories it kept of the old one", async () => {
    const key = await loadedKey();
    const before = await request("/maps/v1/basemap/0/0/0.mvt", { MAP_PMTILES_KEY: key });
    expect(before.status).toBe(200);
    expect((await request("/maps/v1/basemap.json", { MAP_PMTILES_KEY: key })).json.center[2]).toBe(8);
    // Another object (its header's centre zoom differs, so its ETag does): the reads' etagMatches
    // condition fails, and the reader reads the new header.
    const replaced = archive.slice();
    replaced[118] = 5;
    await env.ELEVATION.put(key, replaced);
    const after = await request("/maps/v1/basemap/0/0/0.mvt", { MAP_PMTILES_KEY: key });
    expect(after.status).toBe(200);
    expect(after.bytes).toEqual(before.bytes);
    expect((await request("/maps/v1/basemap.json", { MAP_PMTILES_KEY: key })).json.center[2]).toBe(5);
  });

  it("answers 404 naming the key when the object is no PMTiles archive", async () => {
    const key = await loadedKey(new TextEncoder().encode("not an archive".repeat(2000)));
    const res = await request("/maps/v1/basemap/0/0/0.mvt", { MAP_PMTILES_KEY: key });
    expect(res.status).toBe(404);
    expect(res.json.data.message).toContain(`${key} is not a readable PMTiles archive`);
  });

  it("answers 404 in JSend for a tile the archive does not hold", async () => {
    const key = await loadedKey();
    // Mid-Pacific at zoom 6: outside every area tiled beyond zoom 1.
    for (const path of ["6/2/30.mvt", "9/136/204.mvt"]) {
      const res = await request(`/maps/v1/basemap/${path}`, { MAP_PMTILES_KEY: key });
      expect(res.status, path).toBe(404);
      expect(res.json.status).toBe("fail");
      expect(res.json.data.message).toContain("has no tile");
    }
  });

  it("refuses bad addresses with 400 naming the field", async () => {
    const key = await loadedKey();
    const cases: [string, string][] = [
      ["25/0/0.mvt", "z"],
      ["z/0/0.mvt", "z"],
      ["2/4/0.mvt", "x"],
      ["2/-1/0.mvt", "x"],
      ["2/0/4.mvt", "y"],
      ["2/0/1.png", "y"],
      ["2/0/1", "y"],
    ];
    for (const [path, field] of cases) {
      const res = await request(`/maps/v1/basemap/${path}`, { MAP_PMTILES_KEY: key });
      expect(res.status, path).toBe(400);
      expect(res.json.status).toBe("fail");
      expect(res.json.data.errors.map((e: { name: string }) => e.name)).toContain(field);
    }
  });
});

describe("both pages with a vector basemap configured", () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await createAccount();
  });

  const scriptHash = async () => {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(VECTOR_BASEMAP_SCRIPT));
    return `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`;
  };

  it("the deep-link page keeps its SVG, adds MapLibre's script by its hash, and allows what MapLibre loads", async () => {
    const built = await call("/deeplink/v1/create_flight", {
      method: "POST",
      apiKey: account.apiKey,
      body: { geometry: { type: "Point", coordinates: [-84.19, 36.33] }, buffer: 300 },
    });
    expect(built.status, built.text).toBe(200);
    const creation = new URL(new URL(built.json.data.link).searchParams.get("link")!);
    const key = await loadedKey();
    const page = await request(`${creation.pathname}${creation.search}`, { MAP_PMTILES_KEY: key });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<svg [^>]*data-vector-basemap="-84\.\d+,36\.\d+,-84\.\d+,36\.\d+"/);
    expect(page.text).toContain(`<script type="module">${VECTOR_BASEMAP_SCRIPT}</script>`);
    const policy = page.headers.get("content-security-policy")!;
    expect(policy).toContain(`script-src 'self' ${await scriptHash()};`);
    expect(policy.split(";").find((d) => d.trim().startsWith("script-src"))).not.toContain("unsafe-inline");
    expect(policy).toContain("worker-src 'self' blob:");
    expect(policy).toContain("connect-src 'self'");

    const plain = await request(`${creation.pathname}${creation.search}`, { MAP_PMTILES_KEY: "" });
    expect(plain.text).not.toContain("data-vector-basemap");
    expect(plain.headers.get("content-security-policy")).toContain("script-src 'none'");
  });
});
