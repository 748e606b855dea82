import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ROOT } from "../../tools/lib/config";
import {
  ASSETS_DIR,
  headersFile,
  IMMUTABLE,
  prepareStaticAssets,
  STATIC_FILES,
  type StaticFile,
} from "../../tools/lib/staticAssets";
import { MAPLIBRE_ASSETS, PROTOMAPS_BASEMAPS_ASSETS } from "../../worker/pages/map/assets";
import { DOCS_ASSETS } from "../../worker/routes/docsAssets";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "windsock-assets-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const installed = (file: string) => readFileSync(path.join(ROOT, "node_modules", file));

describe("the static assets step", () => {
  it("copies Swagger UI under its versioned path, the CSS without its source map comment", () => {
    const done = prepareStaticAssets(STATIC_FILES, dir);
    expect(DOCS_ASSETS).toMatch(/^\/docs\/assets\/swagger-ui-\d+\.\d+\.\d+$/);
    const bundle = readFileSync(path.join(dir, DOCS_ASSETS, "swagger-ui-bundle.js"));
    expect(bundle.equals(installed("swagger-ui-dist/swagger-ui-bundle.js"))).toBe(true);
    const css = readFileSync(path.join(dir, DOCS_ASSETS, "swagger-ui.css"), "utf8");
    expect(installed("swagger-ui-dist/swagger-ui.css").toString()).toContain("sourceMappingURL");
    expect(css).not.toContain("sourceMappingURL");
    expect(css).toContain(".swagger-ui");
    // Swagger UI's two, MapLibre's three, Protomaps' one, and _headers.
    expect(done).toMatchObject({ files: 7, written: 7, removed: 0 });
    expect(done.bytes).toBeGreaterThan(1_000_000);
  });

  it("copies MapLibre GL (its module, the worker module beside it, its CSS) and Protomaps' layers under their versions", () => {
    prepareStaticAssets(STATIC_FILES, dir);
    expect(MAPLIBRE_ASSETS).toMatch(/^\/maps\/assets\/maplibre-gl-\d+\.\d+\.\d+$/);
    expect(PROTOMAPS_BASEMAPS_ASSETS).toMatch(/^\/maps\/assets\/protomaps-basemaps-\d+\.\d+\.\d+$/);
    for (const [from, to] of [
      ["maplibre-gl/dist/maplibre-gl.mjs", `${MAPLIBRE_ASSETS}/maplibre-gl.mjs`],
      ["maplibre-gl/dist/maplibre-gl-worker.mjs", `${MAPLIBRE_ASSETS}/maplibre-gl-worker.mjs`],
      ["@protomaps/basemaps/dist/esm/index.js", `${PROTOMAPS_BASEMAPS_ASSETS}/basemaps.mjs`],
    ]) {
      const copied = readFileSync(path.join(dir, to!), "utf8");
      expect(installed(from!).toString()).toContain("//# sourceMappingURL=");
      expect(copied).not.toContain("sourceMappingURL");
      // The rest as installed: only the last line went.
      expect(installed(from!).toString().startsWith(copied.trimEnd())).toBe(true);
      expect(copied.length).toBeGreaterThan(30_000);
    }
    expect(
      readFileSync(path.join(dir, MAPLIBRE_ASSETS, "maplibre-gl.css")).equals(
        installed("maplibre-gl/dist/maplibre-gl.css"),
      ),
    ).toBe(true);
  });

  it("caches every listed file for good through _headers", () => {
    prepareStaticAssets(STATIC_FILES, dir);
    const headers = readFileSync(path.join(dir, "_headers"), "utf8");
    expect(headers).toBe(headersFile(STATIC_FILES));
    for (const file of STATIC_FILES) expect(headers).toContain(`${file.to}\n  Cache-Control: ${IMMUTABLE}\n`);
    expect(IMMUTABLE).toBe("public, max-age=31536000, immutable");
  });

  it("writes nothing when the files are in place, and removes what the list no longer names", () => {
    prepareStaticAssets(STATIC_FILES, dir);
    const stale = path.join(dir, "docs/assets/swagger-ui-1.0.0/swagger-ui.css");
    mkdirSync(path.dirname(stale), { recursive: true });
    writeFileSync(stale, "old");
    expect(prepareStaticAssets(STATIC_FILES, dir)).toMatchObject({ written: 0, removed: 1 });
    expect(existsSync(path.dirname(stale))).toBe(false);
    writeFileSync(path.join(dir, DOCS_ASSETS, "swagger-ui.css"), "changed by hand");
    expect(prepareStaticAssets(STATIC_FILES, dir)).toMatchObject({ written: 1, removed: 0 });
  });

  it("takes any package's file, and refuses a missing package or a path outside the directory", () => {
    const mine: StaticFile[] = [
      {
        from: "swagger-ui-dist/package.json",
        to: "/lib/x-1.0.0/package.json",
        transform: (text) => text.toUpperCase(),
      },
    ];
    prepareStaticAssets(mine, dir);
    expect(readFileSync(path.join(dir, "lib/x-1.0.0/package.json"), "utf8")).toContain(
      '"NAME": "SWAGGER-UI-DIST"',
    );
    expect(() => prepareStaticAssets([{ from: "no-such-package/x.js", to: "/x.js" }], dir)).toThrow(
      "no-such-package/x.js is not installed: run npm install",
    );
    expect(() =>
      prepareStaticAssets([{ from: "swagger-ui-dist/package.json", to: "/../x.json" }], dir),
    ).toThrow("is not a plain URL path");
  });

  it("fills the directory wrangler.toml's [assets] names", () => {
    const toml = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
    const directory = /^\[assets\]\ndirectory = "([^"]+)"/m.exec(toml)?.[1];
    expect(directory && path.resolve(ROOT, directory)).toBe(ASSETS_DIR);
  });
});
