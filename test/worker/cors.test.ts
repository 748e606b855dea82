import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { normalizeOrigin, normalizeOrigins } from "../../worker/domain/corsOrigins";
import app from "../../worker/index";
import { BASE, call, createAccount } from "./helpers";

const PATH = "/auth/v1/cors_origins";

/** One request through the worker with the service's CORS_ALLOWED_ORIGINS set to `service`. */
async function fetchWith(service: string, path: string, init: RequestInit) {
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`${BASE}${path}`, init),
    { ...env, CORS_ALLOWED_ORIGINS: service },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

const preflight = (origin: string) => ({
  method: "OPTIONS",
  headers: {
    Origin: origin,
    "Access-Control-Request-Method": "GET",
    "Access-Control-Request-Headers": "x-api-key",
  },
});

describe("CORS origins per application", () => {
  it("lets an application list its origins and read them back; an empty list returns to the service's", async () => {
    const account = await createAccount("lister");
    const before = await call(PATH, { apiKey: account.apiKey });
    expect(before.status).toBe(200);
    expect(before.json.data).toMatchObject({ origins: [], service_origins: "*" });

    const put = await call(PATH, {
      method: "PUT",
      apiKey: account.apiKey,
      body: { origins: ["https://b.example/", "http://localhost:5173", "https://b.example"] },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.json.data.origins).toEqual(["http://localhost:5173", "https://b.example"]);
    expect((await call(PATH, { apiKey: account.apiKey })).json.data.origins).toEqual(put.json.data.origins);

    const cleared = await call(PATH, { method: "PUT", apiKey: account.apiKey, body: { origins: [] } });
    expect(cleared.json.data.origins).toEqual([]);
  });

  it("refuses what is not an origin, naming the entry (400)", async () => {
    const account = await createAccount("bad origins");
    const res = await call(PATH, {
      method: "PUT",
      apiKey: account.apiKey,
      body: { origins: ["https://ok.example", "https://app.example/path", "*"] },
    });
    expect(res.status).toBe(400);
    expect(res.json.data.errors.map((e: { name: string }) => e.name)).toEqual(["origins.1", "origins.2"]);
    expect(res.json.data.message).toContain("https://app.example");
    expect((await call(PATH, { apiKey: account.apiKey })).json.data.origins).toEqual([]);
  });

  it("holds a browser request to the application's own list, whatever the service allows", async () => {
    const account = await createAccount("restricted");
    await call(PATH, { method: "PUT", apiKey: account.apiKey, body: { origins: ["https://mine.example"] } });
    const from = (origin?: string) =>
      call("/aircraft/v2/manufacturer", {
        apiKey: account.apiKey,
        headers: origin ? { Origin: origin } : {},
      });

    const mine = await from("https://mine.example");
    expect(mine.status).toBe(200);
    expect(mine.headers.get("access-control-allow-origin")).toBe("*");
    const other = await from("https://other.example");
    expect(other.status).toBe(403);
    expect(other.json.data.errors).toEqual([
      { name: "origin", message: expect.stringContaining("/auth/v1/cors_origins") },
    ]);
    // Servers send no Origin; the service's own pages send its own.
    expect((await from()).status).toBe(200);
    expect((await from(new URL(BASE).origin)).status).toBe(200);
  });

  it("answers a preflight without a key when any application lists the origin, and checks the key after", async () => {
    const service = "https://service.example";
    const listing = await createAccount("listing");
    const other = await createAccount("not listing");
    await call(PATH, {
      method: "PUT",
      apiKey: listing.apiKey,
      body: { origins: ["https://listed.example"] },
    });

    const allowed = await fetchWith(
      service,
      "/aircraft/v2/manufacturer",
      preflight("https://listed.example"),
    );
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://listed.example");
    const unknown = await fetchWith(
      service,
      "/aircraft/v2/manufacturer",
      preflight("https://nobody.example"),
    );
    expect(unknown.status).toBe(403);
    expect(unknown.headers.get("access-control-allow-origin")).toBeNull();
    expect((await fetchWith(service, "/aircraft/v2/manufacturer", preflight(service))).status).toBe(204);

    const withKey = (apiKey: string) =>
      fetchWith(service, "/aircraft/v2/manufacturer", {
        headers: { Origin: "https://listed.example", "X-API-Key": apiKey },
      });
    const ok = await withKey(listing.apiKey);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://listed.example");
    // The other application has no list: the service's setting, which does not name the origin.
    const refused = await withKey(other.apiKey);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as any).data.errors[0].message).toContain("CORS_ALLOWED_ORIGINS");
  });
});

describe("origin normalisation", () => {
  it.each([
    ["https://App.Example/", "https://app.example"],
    ["https://app.example:443", "https://app.example"],
    ["http://127.0.0.1:5173", "http://127.0.0.1:5173"],
  ])("takes %s as %s", (input, origin) => {
    expect(normalizeOrigin(input)).toEqual({ ok: true, value: origin });
  });

  it.each([
    "*",
    "app.example",
    "ftp://app.example",
    "https://app.example/x",
    "https://app.example?",
    "https://u@app.example",
  ])("refuses %s", (input) => {
    expect(normalizeOrigin(input).ok).toBe(false);
  });

  it("refuses more than 20 origins", () => {
    const many = Array.from({ length: 21 }, (_, i) => `https://a${i}.example`);
    expect(normalizeOrigins(many)).toMatchObject({ ok: false, problems: [{ field: "origins" }] });
  });
});
