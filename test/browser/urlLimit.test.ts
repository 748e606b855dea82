import { describe, expect, inject, it } from "vitest";
import { MAX_LINK_BYTES } from "../../worker/domain/deeplink/link";

/**
 * The front of `npm start` (wrangler's local workerd) passes URLs of up to about 64 KB to the
 * worker (measured: a path of 65,512 bytes at http://127.0.0.1:<port>), and answers a plain-text
 * 414 beyond. The deep-link builder refuses links over MAX_LINK_BYTES (16 KB, Cloudflare's edge
 * limit), so every link it returns opens locally too: a URL of exactly that length must reach the
 * worker. docs/security.md states both limits.
 */

const service = inject("service");

/** GET /elevation/v1/ele with a padding parameter that makes the whole URL `bytes` long. */
async function eleOfLength(bytes: number) {
  const start = `${service.baseUrl}/elevation/v1/ele?points=10.5,20.5&pad=`;
  const url = start + "x".repeat(bytes - start.length);
  expect(url.length).toBe(bytes);
  const res = await fetch(url, { headers: { "x-api-key": service.apiKey } });
  return { status: res.status, type: res.headers.get("content-type") ?? "", text: await res.text() };
}

describe("the local front's URL limit", () => {
  it("passes a URL as long as the builder's longest link to the worker", async () => {
    const res = await eleOfLength(MAX_LINK_BYTES);
    expect(res.status, res.text.slice(0, 200)).toBe(200);
    expect(JSON.parse(res.text).status).toBe("success");
  });

  it("answers 414 in plain text, before the worker, to a URL of 70,000 bytes", async () => {
    const res = await eleOfLength(70_000);
    expect(res.status).toBe(414);
    expect(res.type).toMatch(/^text\/plain/);
  });
});
