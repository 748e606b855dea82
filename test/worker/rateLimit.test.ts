import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import app from "../../worker/index";
import {
  BINDING_LIMIT_PER_MINUTE,
  BINDING_PERIOD_SECONDS,
  RateLimiter,
  takeRequest,
} from "../../worker/middleware/rateLimiter";
import { BASE, createAccount } from "./helpers";

/** A stand-in for the Workers Rate Limiting binding: `allowed` requests per key, then refusals. */
function fakeBinding(allowed: number) {
  const counts = new Map<string, number>();
  return {
    keys: counts,
    async limit({ key }: { key: string }) {
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      return { success: n <= allowed };
    },
  };
}

async function ping(apiKey: string, bindings: Partial<typeof env>) {
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`${BASE}/dev/v1/db-ping`, { headers: { "X-API-Key": apiKey } }),
    { ...env, ...bindings },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

describe("the isolate's bucket", () => {
  it("loses no requests when the clock steps back", () => {
    const buckets = new RateLimiter();
    const later = Date.parse("2026-11-30T00:00:00Z");
    expect(buckets.take("caller", 60, later)).toBe(0);
    // An hour earlier: before the fix this drained 3,600 requests' worth and refused for an hour.
    expect(buckets.take("caller", 60, later - 3_600_000)).toBe(0);
    expect(buckets.take("caller", 60, later - 3_600_000 + 1)).toBe(0);
  });
});

describe("rate limit: the binding where it exists, the isolate's bucket otherwise", () => {
  it("counts a default-limit key through the binding and answers 429 with its window", async () => {
    const binding = fakeBinding(2);
    const account = await createAccount("binding", null);
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await ping(account.apiKey, { API_RATE_LIMIT: binding })).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect([...binding.keys.keys()]).toEqual([account.keyId]);
    const refused = await ping(account.apiKey, { API_RATE_LIMIT: binding });
    expect(refused.headers.get("Retry-After")).toBe(String(BINDING_PERIOD_SECONDS));
    expect(await refused.json()).toMatchObject({ status: "fail", data: { code: 429 } });
  });

  it("keeps an account's own limit in the bucket, not the binding's one number", async () => {
    const binding = fakeBinding(0);
    const account = await createAccount("own limit", 2);
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await ping(account.apiKey, { API_RATE_LIMIT: binding })).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect(binding.keys.size).toBe(0);
  });

  it("falls back to the bucket at RATE_LIMIT_PER_MINUTE without the binding", async () => {
    const account = { keyId: "key|no-binding", rateLimitPerMinute: null };
    const buckets = new RateLimiter();
    const without = { API_RATE_LIMIT: undefined, RATE_LIMIT_PER_MINUTE: "2" };
    const decisions = [];
    for (let i = 0; i < 3; i++) decisions.push(await takeRequest(without, account, buckets));
    expect(decisions.map((d) => d.by)).toEqual(["isolate", "isolate", "isolate"]);
    expect(decisions.map((d) => d.waitSeconds > 0)).toEqual([false, false, true]);
    expect(decisions[2]!.limit).toBe(2);
    // A default the binding's fixed limit does not hold (a benchmark's override) stays in the bucket…
    const overridden = await takeRequest({ ...without, API_RATE_LIMIT: fakeBinding(5) }, account, buckets);
    expect(overridden.by).toBe("isolate");
    // …while the deployed default goes to the binding, leaving the bucket alone.
    const deployed = {
      API_RATE_LIMIT: fakeBinding(5),
      RATE_LIMIT_PER_MINUTE: String(BINDING_LIMIT_PER_MINUTE),
    };
    expect(await takeRequest(deployed, account, buckets)).toEqual({
      limit: BINDING_LIMIT_PER_MINUTE,
      waitSeconds: 0,
      by: "binding",
    });
  });

  it("is configured: wrangler.toml's binding reaches the worker, with the default it holds", () => {
    expect(typeof env.API_RATE_LIMIT?.limit).toBe("function");
    expect(env.RATE_LIMIT_PER_MINUTE).toBe(String(BINDING_LIMIT_PER_MINUTE));
  });
});
