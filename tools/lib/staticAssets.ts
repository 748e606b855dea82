import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { MAPLIBRE_ASSETS, PROTOMAPS_BASEMAPS_ASSETS } from "../../worker/pages/map/assets.ts";
import { DOCS_ASSETS } from "../../worker/routes/docsAssets.ts";
import { ROOT } from "./config.ts";

/**
 * The directory wrangler.toml's `[assets]` names: Workers Static Assets serves its files before the
 * worker runs, and they do not count against the worker's upload size. Generated (git-ignored):
 * `prepareStaticAssets` owns it, and removes whatever is not in the list.
 */
export const ASSETS_DIR = path.join(ROOT, "dist/assets");

/** One file copied from an installed package into the assets directory. */
export interface StaticFile {
  /** The file under node_modules, e.g. `swagger-ui-dist/swagger-ui.css`. */
  from: string;
  /**
   * The URL path it is served at. It must carry the library's version: every listed file is sent
   * with `immutable`, so a browser never asks for it again.
   */
  to: string;
  /** Changes the file's text at copy time. */
  transform?: (text: string) => string;
}

/** Sent with every listed file (through the directory's `_headers` file). */
export const IMMUTABLE = "public, max-age=31536000, immutable";

/** Its source map is not shipped; without the comment no browser asks for it. */
export function withoutSourceMapComment(css: string): string {
  return css.replace(/\/\*# sourceMappingURL=[^*]*\*\/\s*$/, "");
}

/** The same for a script: the `//# sourceMappingURL=` line at its end. */
export function withoutScriptSourceMap(js: string): string {
  return js.replace(/\n\/\/# sourceMappingURL=\S*\s*$/, "\n");
}

/** What the pages load besides the worker's own answers. */
export const STATIC_FILES: StaticFile[] = [
  { from: "swagger-ui-dist/swagger-ui-bundle.js", to: `${DOCS_ASSETS}/swagger-ui-bundle.js` },
  {
    from: "swagger-ui-dist/swagger-ui.css",
    to: `${DOCS_ASSETS}/swagger-ui.css`,
    transform: withoutSourceMapComment,
  },
  // MapLibre GL for the pages' vector basemap (pages/map/vectorBasemap.ts): the module, the Web
  // Worker module it starts from beside itself, its stylesheet; Protomaps' style layers.
  {
    from: "maplibre-gl/dist/maplibre-gl.mjs",
    to: `${MAPLIBRE_ASSETS}/maplibre-gl.mjs`,
    transform: withoutScriptSourceMap,
  },
  {
    from: "maplibre-gl/dist/maplibre-gl-worker.mjs",
    to: `${MAPLIBRE_ASSETS}/maplibre-gl-worker.mjs`,
    transform: withoutScriptSourceMap,
  },
  { from: "maplibre-gl/dist/maplibre-gl.css", to: `${MAPLIBRE_ASSETS}/maplibre-gl.css` },
  {
    from: "@protomaps/basemaps/dist/esm/index.js",
    to: `${PROTOMAPS_BASEMAPS_ASSETS}/basemaps.mjs`,
    transform: withoutScriptSourceMap,
  },
];

/** The `_headers` file (Workers Static Assets' format): each listed path, cached for good. */
export function headersFile(files: StaticFile[]): string {
  return files.map((file) => `${file.to}\n  Cache-Control: ${IMMUTABLE}\n`).join("");
}

export interface PreparedAssets {
  files: number;
  bytes: number;
  /** Files written because they were missing or differed; the rest were already in place. */
  written: number;
  removed: number;
}

/**
 * Copies the listed files from node_modules into `dir` (applying their transforms) and writes
 * `_headers`. Fast when nothing changed: a file is written only when its bytes differ, so wrangler
 * dev, which watches the directory, does not reload for nothing.
 */
export function prepareStaticAssets(
  files: StaticFile[] = STATIC_FILES,
  dir: string = ASSETS_DIR,
): PreparedAssets {
  const wanted = new Map<string, Buffer>();
  for (const file of files) {
    if (!/^\/[\w./@-]+$/.test(file.to) || file.to.includes(".."))
      throw new Error(`static file ${file.from}: "${file.to}" is not a plain URL path`);
    // Read from node_modules as installed: a package's `exports` need not list its static files.
    let bytes: Buffer;
    try {
      bytes = readFileSync(path.join(ROOT, "node_modules", file.from));
    } catch {
      throw new Error(`static file ${file.from} is not installed: run npm install`);
    }
    wanted.set(
      path.join(dir, file.to),
      file.transform ? Buffer.from(file.transform(bytes.toString("utf8"))) : bytes,
    );
  }
  wanted.set(path.join(dir, "_headers"), Buffer.from(headersFile(files)));

  let written = 0;
  for (const [target, bytes] of wanted) {
    if (sameBytes(target, bytes)) continue;
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, bytes);
    written++;
  }
  const removed = removeUnlisted(dir, new Set(wanted.keys()));
  const bytes = [...wanted.values()].reduce((sum, b) => sum + b.length, 0);
  return { files: wanted.size, bytes, written, removed };
}

function sameBytes(file: string, bytes: Buffer): boolean {
  try {
    return readFileSync(file).equals(bytes);
  } catch {
    return false;
  }
}

/** Removes files the list no longer names (an older library version) and the folders left empty. */
function removeUnlisted(dir: string, keep: Set<string>): number {
  let removed = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      removed += removeUnlisted(full, keep);
      if (readdirSync(full).length === 0) rmSync(full, { recursive: true });
    } else if (!keep.has(full)) {
      rmSync(full);
      removed++;
    }
  }
  return removed;
}
