import { describe, expect, inject, it } from "vitest";
import { IMMUTABLE } from "../../tools/lib/staticAssets";
import { DOCS_ASSETS } from "../../worker/routes/docsAssets";

const service = inject("service");
const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${service.baseUrl}${path}`, { headers });

// Workers Static Assets (wrangler.toml [assets]) answers these before the worker runs. The Workers
// Vitest pool's SELF.fetch goes straight to the worker and never sees them, so they are tested here,
// through npm start's wrangler dev.
describe("the docs page's library files, served as static assets", () => {
  it("serves Swagger UI's script and style sheet with their types, cached for good", async () => {
    const script = await get(`${DOCS_ASSETS}/swagger-ui-bundle.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("javascript");
    expect(await script.text()).toContain("SwaggerUIBundle");
    // From the directory's _headers file, which wrangler dev honours as Cloudflare does.
    expect(script.headers.get("cache-control")).toBe(IMMUTABLE);
    const etag = script.headers.get("etag");
    expect(etag).toMatch(/^(W\/)?"[^"]+"$/);
    const again = await get(`${DOCS_ASSETS}/swagger-ui-bundle.js`, { "If-None-Match": etag! });
    expect(again.status).toBe(304);

    const css = await get(`${DOCS_ASSETS}/swagger-ui.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toContain("text/css");
    expect(css.headers.get("cache-control")).toBe(IMMUTABLE);
    const text = await css.text();
    expect(text).toContain(".swagger-ui");
    expect(text).not.toContain("sourceMappingURL");
  });

  it("leaves the page, the document and any other path to the worker", async () => {
    const page = await get("/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("cache-control")).toBe("public, max-age=300");
    expect(await page.text()).toContain(`${DOCS_ASSETS}/swagger-ui-bundle.js`);
    const document = await get("/openapi.json");
    expect(document.status).toBe(200);
    expect(((await document.json()) as { openapi: string }).openapi).toBe("3.1.0");
    // Another version's file is no asset: the worker answers, in JSend.
    const missing = await get("/docs/assets/swagger-ui-0.0.0/swagger-ui-bundle.js");
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { status: string }).status).toBe("fail");
    // Nor is the _headers file itself: the worker asks for an API key there.
    const headers = await get("/_headers");
    expect(headers.status).toBe(401);
    expect(await headers.text()).not.toContain("Cache-Control");
  });
});
