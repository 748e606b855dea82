import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import app from "../../worker/index";
import archiveBytes from "../fixtures/basemap/embedded-z6.pmtiles";
import { createAccount, interussToken, type TestAccount } from "./helpers";

/**
 * Issue 37, item 7: the `Host` header decided origins and the InterUSS audience. With
 * `Host: evil.example` the outer deep link redirected there, the sign-in's redirect_uri named it, a
 * token minted for audience evil.example was accepted on /rid/v2, and /maps/v1/basemap.json was
 * cached public with evil tile URLs and no Vary. Now PUBLIC_URL decides; the request only in
 * development, and then the answer says `Vary: Host`.
 */

const PUBLIC_URL = "https://windsock.example.com";
const EVIL = "http://evil.example";

let account: TestAccount;
beforeAll(async () => {
  account = await createAccount("public-origin");
});

async function send(
  url: string,
  settings: Record<string, string>,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
) {
  const ctx = createExecutionContext();
  const headers: Record<string, string> = { "x-api-key": account.apiKey, ...init.headers };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const res = await app.fetch(
    new Request(url, {
      method: init.method ?? "GET",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      redirect: "manual",
    }),
    { ...env, ...settings },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

const production = { ENVIRONMENT: "production", PUBLIC_URL };

describe("one configured public origin", () => {
  it("deep links are built on PUBLIC_URL whatever the Host says", async () => {
    const res = await send(`${EVIL}/deeplink/v1/create_flight`, production, {
      method: "POST",
      body: { geometry: { type: "Point", coordinates: [8.54, 47.37] }, buffer: 50 },
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    const link = JSON.parse(text).data.link as string;
    expect(link.startsWith(`${PUBLIC_URL}/`)).toBe(true);
    expect(new URL(new URL(link).searchParams.get("link")!).origin).toBe(PUBLIC_URL);
    expect(text).not.toContain("evil.example");
  });

  it("the outer link refuses to send the browser to the Host's origin", async () => {
    const inner = encodeURIComponent(`${EVIL}/create_flight/v1/?geometry=x`);
    const res = await send(`${EVIL}/deeplink/v1/open?link=${inner}`, production);
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });

  it("basemap tile URLs name PUBLIC_URL; in development the request's, with Vary: Host", async () => {
    const key = `basemap/public-origin-${Date.now()}.pmtiles`;
    await env.ELEVATION.put(key, new Uint8Array(archiveBytes));
    const configured = await send(`${EVIL}/maps/v1/basemap.json`, { ...production, MAP_PMTILES_KEY: key });
    const tileJson = (await configured.json()) as { tiles: string[] };
    expect(tileJson.tiles).toEqual([`${PUBLIC_URL}/maps/v1/basemap/{z}/{x}/{y}.mvt`]);
    expect(configured.headers.get("vary") ?? "").not.toMatch(/Host/);
    const development = await send(`${EVIL}/maps/v1/basemap.json`, {
      ENVIRONMENT: "development",
      MAP_PMTILES_KEY: key,
    });
    expect(((await development.json()) as { tiles: string[] }).tiles[0]).toContain(EVIL);
    expect(development.headers.get("vary") ?? "").toMatch(/Host/);
  });

  it("outside development an unset PUBLIC_URL is a 503 naming it, never the Host's origin", async () => {
    const res = await send(
      `${EVIL}/deeplink/v1/create_flight`,
      { ENVIRONMENT: "production", PUBLIC_URL: "" },
      {
        method: "POST",
        body: { geometry: { type: "Point", coordinates: [8.54, 47.37] }, buffer: 50 },
      },
    );
    expect(res.status).toBe(503);
    const body = (await res.json()) as { status: string; message: string };
    expect(body.status).toBe("error");
    expect(body.message).toContain("PUBLIC_URL");
  });

  it("an InterUSS token for the Host's audience is refused; PUBLIC_URL's host is the audience", async () => {
    const settings = { ENVIRONMENT: "development", PUBLIC_URL };
    const view = "/rid/v2/uss/flights?view=47.37,8.54,47.38,8.55";
    const forEvil = await interussToken(["rid.display_provider"], { aud: "evil.example" });
    const refused = await send(`${EVIL}${view}`, settings, {
      headers: { authorization: `Bearer ${forEvil}` },
    });
    expect(refused.status).toBe(401);
    await refused.body?.cancel();
    const forUs = await interussToken(["rid.display_provider"], { aud: "windsock.example.com" });
    const accepted = await send(`${EVIL}${view}`, settings, {
      headers: { authorization: `Bearer ${forUs}` },
    });
    expect(accepted.status).not.toBe(401);
    await accepted.body?.cancel();
  });
});
