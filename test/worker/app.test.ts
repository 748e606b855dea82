import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createRouter, renderError, renderNotFound } from "../../worker/app";
import { clearKeyCache } from "../../worker/middleware/apiKey";
import { DOCS_ASSETS } from "../../worker/routes/docsAssets";
import { call, createAccount } from "./helpers";

describe("envelope and status codes", () => {
  it("answers health without a key", async () => {
    const res = await call("/health");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: "success", data: { status: "ok" } });
  });

  it("answers unknown routes with a JSend 404 and wrong methods with 405 and Allow", async () => {
    const account = await createAccount();
    const missing = await call("/nowhere/v9", { apiKey: account.apiKey });
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ status: "fail", data: { code: 404 } });
    const wrong = await call("/health", { method: "DELETE" });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toContain("GET");
    expect(wrong.json).toMatchObject({ status: "fail", data: { code: 405 } });
    const wrongOnParam = await call("/flight/v2/flight|abc/end", { method: "GET", apiKey: account.apiKey });
    expect(wrongOnParam.status).toBe(405);
  });

  it("refuses a missing, unknown or revoked key with 401", async () => {
    const account = await createAccount();
    expect((await call("/dev/v1/db-ping")).status).toBe(401);
    const unknown = await call("/dev/v1/db-ping", { apiKey: "wsk_notakey" });
    expect(unknown.status).toBe(401);
    expect(unknown.json.status).toBe("fail");
    expect((await call("/dev/v1/db-ping", { apiKey: account.apiKey })).status).toBe(200);
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ?")
      .bind(Date.now(), account.keyId)
      .run();
    clearKeyCache();
    expect((await call("/dev/v1/db-ping", { apiKey: account.apiKey })).status).toBe(401);
  });

  it("rate limits per key with 429 and Retry-After", async () => {
    const limited = await createAccount("limited", 3);
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 5; i++) {
      const res = await call("/dev/v1/db-ping", { apiKey: limited.apiKey });
      statuses.push(res.status);
      if (res.status === 429) {
        retryAfter = res.headers.get("retry-after");
        expect(res.json).toMatchObject({ status: "fail", data: { code: 429 } });
      }
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses.slice(3)).toEqual([429, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    // Another key is not affected.
    const free = await createAccount();
    expect((await call("/dev/v1/db-ping", { apiKey: free.apiKey })).status).toBe(200);
  });

  it("hides internals behind a JSend 500", async () => {
    const app = createRouter();
    app.get("/boom", () => {
      throw new Error("SELECT secret FROM sqlite_master");
    });
    app.onError(renderError);
    app.notFound(renderNotFound(app));
    const res = await app.request("/boom");
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ status: "error", code: 500, message: expect.any(String) });
    expect(text).not.toContain("SELECT");
  });
});

describe("documentation", () => {
  it("publishes an OpenAPI 3.1 document of the routes and a readable page", async () => {
    const doc = await call("/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.json.openapi).toBe("3.1.0");
    for (const path of [
      "/auth/v1/anonymous/token",
      "/flight/v2/plan",
      "/flight/v2/{flight_id}",
      "/flight/v2/point",
    ]) {
      expect(Object.keys(doc.json.paths)).toContain(path);
    }
    const page = await call("/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    // Swagger UI renders the document; without scripts the page still lists every operation.
    expect(page.text).toContain(`${DOCS_ASSETS}/swagger-ui-bundle.js`);
    expect(page.text).toContain('"url":"/openapi.json"');
    expect(page.text).toContain("/flight/v2/plan/{plan_id}/submit");
    expect(page.text).not.toMatch(/src="https?:|href="https?:/);
  });

  it("resolves every $ref, declares both credentials and documents the UDP datagram", async () => {
    const doc = (await call("/openapi.json")).json;
    const refs = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === "object")
        for (const [key, value] of Object.entries(node)) {
          if (key === "$ref" && typeof value === "string") refs.add(value);
          else walk(value);
        }
    };
    walk(doc.paths);
    walk(doc.components);
    expect(refs.size).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(ref, ref).toMatch(/^#\/components\//);
      const target = ref
        .slice(2)
        .split("/")
        .reduce<any>((node, part) => node?.[part.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
      expect(target, ref).toBeTypeOf("object");
    }
    expect(doc.components.securitySchemes).toMatchObject({
      ApiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
      Bearer: { type: "http", scheme: "bearer" },
    });
    // The datagram's layout sits under the Telemetry tag, not in the getting-started above it.
    const description: string = doc.tags.find(
      (tag: { name: string }) => tag.name === "Telemetry",
    ).description;
    expect(description).toContain("Telemetry datagrams");
    expect(doc.info.description).not.toContain("Telemetry datagrams");
    for (const field of ["serial", "flight id length", "encryption type", "IV", "payload", "message type"])
      expect(description).toContain(field);
  });
});
