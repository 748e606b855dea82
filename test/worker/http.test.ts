import { SELF, env as testEnv } from "cloudflare:test";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { renderError } from "../../worker/app";
import { windsock } from "../../worker/client";
import type { AppEnv, Bindings } from "../../worker/env";
import { corsMiddleware, parseAllowedOrigins } from "../../worker/middleware/cors";
import { BASE, call, createAccount } from "./helpers";

const ORIGIN = "https://app.example";

describe("CORS", () => {
  it("answers a preflight without an API key", async () => {
    const res = await call("/flight/v2/plan", {
      method: "OPTIONS",
      headers: {
        Origin: ORIGIN,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "x-api-key, authorization, content-type",
      },
    });
    expect(res.status).toBe(204);
    // wrangler.toml allows any origin: keys travel in a header, never in cookies.
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    const allowed = res.headers.get("access-control-allow-headers")!.toLowerCase().split(",");
    expect(allowed).toEqual(expect.arrayContaining(["x-api-key", "authorization", "content-type"]));
    expect(Number(res.headers.get("access-control-max-age"))).toBeGreaterThan(0);
  });

  it("lets a page read answers, failures included, and the headers it needs", async () => {
    const account = await createAccount();
    const ok = await call("/aircraft/v2/manufacturer", {
      apiKey: account.apiKey,
      headers: { Origin: ORIGIN },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe("*");
    const exposed = ok.headers.get("access-control-expose-headers")!.toLowerCase();
    for (const name of ["etag", "retry-after", "allow"]) expect(exposed).toContain(name);
    const refused = await call("/aircraft/v2/manufacturer", { headers: { Origin: ORIGIN } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
  });

  describe("with a list of origins", () => {
    const app = new Hono<AppEnv>();
    app.use("*", corsMiddleware);
    app.get("/thing", (c) => c.json({ status: "success", data: {} }));
    app.onError(renderError);
    // DB too: an origin the service does not list may still be an application's own (cors_origins).
    const env = {
      DB: testEnv.DB,
      CORS_ALLOWED_ORIGINS: " https://app.example , https://other.example/ , not a url",
    };
    const request = (init: RequestInit) => app.request("/thing", init, env as unknown as Bindings);

    it("allows a listed origin, echoed with Vary: Origin", async () => {
      const preflight = await request({
        method: "OPTIONS",
        headers: { Origin: "https://other.example", "Access-Control-Request-Method": "GET" },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe("https://other.example");
      const res = await request({ headers: { Origin: ORIGIN } });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN);
      expect(res.headers.get("vary")).toContain("Origin");
    });

    it("refuses another origin's preflight with a JSend 403 and serves it no CORS headers", async () => {
      const preflight = await request({
        method: "OPTIONS",
        headers: { Origin: "https://evil.example", "Access-Control-Request-Method": "GET" },
      });
      expect(preflight.status).toBe(403);
      const body = (await preflight.json()) as any;
      expect(body).toMatchObject({ status: "fail", data: { code: 403, errors: [{ name: "origin" }] } });
      expect(body.data.message).toContain("https://evil.example");
      expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
      const res = await request({ headers: { Origin: "https://evil.example" } });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    });
  });

  it("reads CORS_ALLOWED_ORIGINS as origins, `*`, or nothing", () => {
    expect(parseAllowedOrigins("*")).toBe("*");
    expect(parseAllowedOrigins("https://a.example, *")).toBe("*");
    expect([
      ...(parseAllowedOrigins("https://a.example/path/, http://127.0.0.1:5173") as Set<string>),
    ]).toEqual(["https://a.example", "http://127.0.0.1:5173"]);
    expect([...(parseAllowedOrigins(undefined) as Set<string>)]).toEqual([]);
    expect([...(parseAllowedOrigins(" , nonsense") as Set<string>)]).toEqual([]);
  });
});

describe("caching", () => {
  it("gives public documents an ETag and Cache-Control, and answers If-None-Match with 304", async () => {
    for (const path of ["/.well-known/jwks.json", "/openapi.json", "/docs"]) {
      const first = await call(path);
      expect(first.status, path).toBe(200);
      const etag = first.headers.get("etag");
      expect(etag, path).toMatch(/^"[^"]+"$/);
      expect(first.headers.get("cache-control"), path).toContain("public");
      const again = await call(path, { headers: { "If-None-Match": etag! } });
      expect(again.status, path).toBe(304);
      expect(again.text, path).toBe("");
      expect(again.headers.get("etag"), path).toBe(etag);
      expect(again.headers.get("cache-control"), path).toBe(first.headers.get("cache-control"));
      const stale = await call(path, { headers: { "If-None-Match": '"something-else"' } });
      expect(stale.status, path).toBe(200);
    }
  });

  it("caches an API key's catalogue answers privately, and never failures or changing records", async () => {
    const account = await createAccount();
    const first = await call("/aircraft/v2/manufacturer", { apiKey: account.apiKey });
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toContain("private");
    const again = await call("/aircraft/v2/manufacturer", {
      apiKey: account.apiKey,
      headers: { "If-None-Match": first.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
    const missing = await call("/aircraft/v2/model/model%7Cnope", { apiKey: account.apiKey });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("etag")).toBeNull();
    expect(missing.headers.get("cache-control")).toBeNull();
    const health = await call("/health");
    expect(health.headers.get("etag")).toBeNull();
  });
});

describe("manners", () => {
  it("serves an icon at /favicon.ico without a key", async () => {
    const res = await call("/favicon.ico");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
    expect(res.text).toContain("<svg");
  });

  it("answers JSON sent as a form with a 415 that says to send JSON", async () => {
    const account = await createAccount();
    const res = await call("/auth/v1/anonymous/token", {
      method: "POST",
      apiKey: account.apiKey,
      body: JSON.stringify({ user_id: "pilot-415" }),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(415);
    expect(res.json).toMatchObject({
      status: "fail",
      data: { code: 415, errors: [{ name: "content-type" }] },
    });
    expect(res.json.data.message).toMatch(/^The body is JSON .*send the body as application\/json/);
    expect(res.text).not.toContain("user_id");
    // A real form still works where the route documents one.
    const form = await call("/auth/v1/anonymous/token", {
      method: "POST",
      apiKey: account.apiKey,
      body: "user_id=pilot-form",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(200);
  });

  it("answers a body in a media type the route does not take with 415 naming the one it does", async () => {
    const account = await createAccount();
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml"]) {
      const res = await call("/flight/v2/plan", {
        method: "POST",
        apiKey: account.apiKey,
        body: "takeoff_latitude=1",
        headers: { "Content-Type": type },
      });
      expect(res.status, type).toBe(415);
      expect(res.json.data.message, type).toContain(type);
      expect(res.json.data.message, type).toContain("application/json");
      expect(res.json.data.message, type).not.toContain("x-www-form-urlencoded or");
    }
  });

  it("lists in Allow only the methods that exist at the path", async () => {
    const account = await createAccount();
    const plan = await call("/flight/v2/plan", { method: "DELETE", apiKey: account.apiKey });
    expect(plan.status).toBe(405);
    expect(plan.headers.get("allow")).toBe("POST");
    expect(plan.json.data.message).toMatch(/use POST$/);
    const end = await call("/flight/v2/flight%7Cabc/end", { method: "GET", apiKey: account.apiKey });
    expect(end.status).toBe(405);
    expect(end.headers.get("allow")).toBe("POST");
    const pilot = await call("/pilot/v2/pilot%7Cabc", { method: "DELETE", apiKey: account.apiKey });
    expect(pilot.status).toBe(405);
    expect(pilot.headers.get("allow")!.split(", ").sort()).toEqual(["GET", "PATCH"]);
  });
});

describe("typed client", () => {
  it("calls the API through Hono's hc with typed paths, bodies and answers", async () => {
    const account = await createAccount();
    const fetchSelf = ((input: RequestInfo | URL, init?: RequestInit) =>
      SELF.fetch(input, init)) as typeof fetch;
    const api = windsock(BASE, { apiKey: account.apiKey, fetch: fetchSelf });
    const issued = await api.auth.v1.anonymous.token.$post({ json: { user_id: "pilot-hc" } });
    expect(issued.status).toBe(200);
    const token = await issued.json();
    if (token.status !== "success") throw new Error(token.data.message);
    expect(token.data.id_token.split(".")).toHaveLength(3);
    const added = await api.deeplink.v1.callbacks.$post({ json: { url: "https://partner.example/hc" } });
    expect(added.status).toBe(200);
    const listed = await api.deeplink.v1.callbacks.$get();
    const callbacks = await listed.json();
    if (callbacks.status !== "success") throw new Error(callbacks.data.message);
    expect(callbacks.data.map((c) => c.url)).toContain("https://partner.example/hc");
    const keys = await api[".well-known"]["jwks.json"].$get();
    const jwks = await keys.json();
    expect(jwks.status).toBe("success");
    if (jwks.status === "success") expect(jwks.data.keys.length).toBeGreaterThan(0);
    const health = await api.health.$get();
    expect(await health.json()).toEqual({ status: "success", data: { status: "ok" } });
  });
});
