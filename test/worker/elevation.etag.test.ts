import { env } from "cloudflare:test";
import { Hono } from "hono";
import { etag } from "hono/etag";
import { beforeAll, describe, expect, it } from "vitest";
import { objectsOf, tileOf } from "../domain/elevationFixtures";
import { call, createAccount, type TestAccount } from "./helpers";

let account: TestAccount;
beforeAll(async () => {
  account = await createAccount();
  const objects = await objectsOf([tileOf(10, 20, 3, (k, m) => 100 + ((k * 7 + m * 13) % 900))]);
  for (const [key, bytes] of objects) await env.ELEVATION.put(key, bytes);
});

/** The ETag hono/etag gives these bytes: what the cache middleware set before the routes set their own. */
async function honoEtag(text: string): Promise<string | null> {
  const oracle = new Hono().use(etag()).get("/", (c) => c.body(new TextEncoder().encode(text)));
  return (await oracle.request("/")).headers.get("etag");
}

describe("elevation ETags", () => {
  it.each([
    ["/ele", "/elevation/v1/ele?points=10.1,20.1,10.2,20.3,11.5,20.5"],
    ["/ele/path", "/elevation/v1/ele/path?points=10.1,20.1,10.12,20.15"],
    // 481² samples, about 1 MB: digested in 256 KiB pieces.
    ["a 0.4° /ele/carpet", "/elevation/v1/ele/carpet?points=10.1,20.1,10.5,20.5"],
  ])("%s: the ETag hono/etag gives the body, and 304 on a match", async (_, path) => {
    const first = await call(path, { apiKey: account.apiKey });
    expect(first.status, first.text).toBe(200);
    const tag = first.headers.get("etag");
    expect(tag).toBe(await honoEtag(first.text));
    expect(first.headers.get("cache-control")).toBe("private, max-age=3600");
    const again = await call(path, { apiKey: account.apiKey, headers: { "If-None-Match": tag! } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(tag);
  });

  it("gives the POST forms no ETag, as before", async () => {
    const res = await call("/elevation/v1/ele", {
      method: "POST",
      apiKey: account.apiKey,
      body: { points: [[10.1, 20.1]] },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBeNull();
  });
});
