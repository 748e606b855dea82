import { describe, expect, it } from "vitest";
import app from "../../worker/index";
import wranglerToml from "../../wrangler.toml?raw";

/** `[assets] run_worker_first` of wrangler.toml: the paths that go to the worker before any asset look-up. */
function workerFirstPatterns(): string[] {
  const at = wranglerToml.indexOf("\nrun_worker_first");
  if (at < 0) return [];
  // A TOML array of plain strings, written as JSON would write it.
  const array = wranglerToml.slice(wranglerToml.indexOf("[", at), wranglerToml.indexOf("]", at) + 1);
  return JSON.parse(array) as string[];
}

/** A pattern's `*` matches anything, `/` included (Workers Static Assets' routing rules). */
const matches = (pattern: string, path: string) =>
  new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`).test(path);

describe("which paths skip the static assets", () => {
  it("sends every route of the worker straight to it, and the pages' library files to the assets", () => {
    const patterns = workerFirstPatterns();
    const routes = [...new Set(app.routes.map((r) => r.path).filter((p) => p !== "*" && p !== "/*"))];
    const missed = routes.filter((path) => !patterns.some((p) => matches(p, path.replace(/:[^/]+/g, "x"))));
    expect(missed).toEqual([]);
    for (const asset of ["/docs/assets/swagger-ui-5.35.0/swagger-ui.css", "/maps/assets/x/maplibre-gl.mjs"])
      expect(
        patterns.some((p) => matches(p, asset)),
        asset,
      ).toBe(false);
  });
});
