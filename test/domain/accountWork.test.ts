import { describe, expect, it } from "vitest";
import {
  EXPENSIVE_BURST_MS,
  EXPENSIVE_CONCURRENCY,
  EXPENSIVE_SHARE,
  HEAVY_CHARGE,
  isExpensive,
  MAX_WAITING,
  PAGE_CONCURRENCY,
  WorkLimiter,
} from "../../worker/middleware/accountWork";

describe("per-account limits of expensive work", () => {
  it("names the expensive routes", () => {
    expect(isExpensive("POST", "/flight/v2/polygon")).toBe(true);
    expect(isExpensive("GET", "/elevation/v1/ele/carpet")).toBe(true);
    expect(isExpensive("POST", "/status/v2/point")).toBe(true);
    expect(isExpensive("GET", "/flight/v2/flight|x")).toBe(false);
    expect(isExpensive("GET", "/health")).toBe(false);
  });

  it("runs EXPENSIVE_CONCURRENCY at once per account; the next waits for a release, others do not", async () => {
    const limiter = new WorkLimiter();
    const held = [];
    for (let i = 0; i < EXPENSIVE_CONCURRENCY; i++) held.push(await limiter.acquire("a"));
    let third: ((ended?: number) => void) | null | undefined;
    const waiting = limiter.acquire("a").then((r) => {
      third = r;
    });
    // Another account is not held up by account a.
    expect(await limiter.acquire("b")).toBeTypeOf("function");
    await new Promise((r) => setTimeout(r, 20));
    expect(third).toBeUndefined();
    held[0]!();
    await waiting;
    expect(third).toBeTypeOf("function");
  });

  it("starts a page (PAGE_CONCURRENCY) only while fewer of the account's expensive requests run", async () => {
    const limiter = new WorkLimiter();
    const held = [];
    for (let i = 0; i < PAGE_CONCURRENCY; i++) held.push(await limiter.acquire("p"));
    let page: ((ended?: number) => void) | null | undefined;
    const waiting = limiter.acquire("p", Date.now(), PAGE_CONCURRENCY).then((r) => {
      page = r;
    });
    // An API request still has room (EXPENSIVE_CONCURRENCY > PAGE_CONCURRENCY); the page waits.
    const api = await limiter.acquire("p");
    expect(api).toBeTypeOf("function");
    await new Promise((r) => setTimeout(r, 60));
    expect(page).toBeUndefined();
    for (const release of held) release!();
    await new Promise((r) => setTimeout(r, 60));
    expect(page).toBeUndefined();
    api!();
    await waiting;
    expect(page).toBeTypeOf("function");
  });

  it("refuses beyond MAX_WAITING waiting, and once the account's time share is spent", async () => {
    const limiter = new WorkLimiter();
    for (let i = 0; i < EXPENSIVE_CONCURRENCY; i++) await limiter.acquire("c");
    for (let i = 0; i < MAX_WAITING; i++) void limiter.acquire("c");
    expect(await limiter.acquire("c")).toBeNull();
    // 30 s of work charged at once: the budget refills at half speed, past the 10 s wait.
    const spent = new WorkLimiter();
    const release = (await spent.acquire("d"))!;
    release(Date.now() + 30_000);
    expect(await spent.acquire("d")).toBeNull();
    expect(spent.retryAfterSeconds("d")).toBeGreaterThan(10);
  });

  it("charges pages and the heaviest class HEAVY_CHARGE times their time against the share", async () => {
    const limiter = new WorkLimiter();
    const started = Date.now();
    // Half the burst of plain work leaves room; the same time charged at HEAVY_CHARGE spends it.
    (await limiter.acquire("plain", started))!(started + EXPENSIVE_BURST_MS / 2);
    expect(limiter.retryAfterSeconds("plain")).toBe(1);
    const heavy = (await limiter.acquire("heavy", started, 1, HEAVY_CHARGE))!;
    heavy(started + EXPENSIVE_BURST_MS / 2);
    const owedMs = (EXPENSIVE_BURST_MS / 2) * HEAVY_CHARGE - EXPENSIVE_BURST_MS;
    expect(limiter.retryAfterSeconds("heavy")).toBeCloseTo(owedMs / EXPENSIVE_SHARE / 1000, 0);
  });
});
