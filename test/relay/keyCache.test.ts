import { describe, expect, it } from "vitest";
import { SessionKey } from "../../relay/crypto";
import { KeyCache, type KeyCacheOptions, KeyUnavailable } from "../../relay/keyCache";
import type { Session } from "../../relay/workerClient";

const OPTIONS: KeyCacheOptions = {
  ttlMs: 1000,
  negativeTtlMs: 500,
  retryAfterMs: 100,
  maxEntries: 3,
  maxPendingFetches: 2,
};

function session(id: string): Session {
  return { id, key: new SessionKey(Buffer.alloc(32, 1)), openedAt: 0 };
}

/** A cache over a scripted worker: each look-up takes the next answer (a session, null, or an error). */
function scripted(answers: (Session | null | Error)[], options = OPTIONS) {
  const calls: string[] = [];
  const cache = new KeyCache(async (flightId) => {
    calls.push(flightId);
    const answer = answers.shift();
    if (answer instanceof Error) throw answer;
    return answer ?? null;
  }, options);
  return { cache, calls };
}

describe("KeyCache", () => {
  it("looks a flight up once for concurrent callers and then serves it synchronously", async () => {
    const { cache, calls } = scripted([session("s1")]);
    const [a, b] = await Promise.all([cache.load("f", 0), cache.load("f", 0)]);
    expect(a).toBe(b);
    expect(cache.peek("f", 10)?.session?.id).toBe("s1");
    expect(calls).toEqual(["f"]);
  });

  it("caches a flight without a session negatively for its own, shorter time", async () => {
    const { cache, calls } = scripted([null, session("s1")]);
    expect((await cache.load("f", 0)).session).toBeNull();
    expect(cache.peek("f", 499)?.session).toBeNull();
    expect(calls).toHaveLength(1);
    // Expired: no answer and no look-up of its own; the caller loads it (and pays for it).
    expect(cache.peek("f", 500)).toBeUndefined();
    await new Promise((r) => setImmediate(r));
    expect(calls).toHaveLength(1);
    expect((await cache.load("f", 500)).session?.id).toBe("s1");
    expect(calls).toHaveLength(2);
  });

  it("refetches after a decrypt failure at once, or once the retry interval has passed", async () => {
    const { cache, calls } = scripted([session("s1"), session("s2"), session("s3")]);
    await cache.load("f", Date.now());
    const soon = cache.refetch("f", Date.now());
    expect(cache.refetch("f", Date.now())).toBe(soon);
    expect(calls).toHaveLength(1);
    expect((await soon).session?.id).toBe("s2");
    expect(calls).toHaveLength(2);
    expect((await cache.refetch("f", Date.now() + OPTIONS.retryAfterMs)).session?.id).toBe("s3");
  });

  it("keeps serving a known session while the worker is unreachable, asking again only after a pause", async () => {
    const { cache, calls } = scripted([session("s1"), new Error("down"), session("s1b")]);
    await cache.load("f", 0);
    expect(cache.peek("f", 1000)?.session?.id).toBe("s1");
    await new Promise((r) => setImmediate(r));
    expect(cache.peek("f", 1050)?.session?.id).toBe("s1");
    expect(calls).toHaveLength(2);
    cache.peek("f", 1100);
    await new Promise((r) => setImmediate(r));
    expect(cache.peek("f", 1101)?.session?.id).toBe("s1b");
  });

  it("refuses look-ups of an unknown flight for a moment after one failed", async () => {
    const { cache, calls } = scripted([new Error("down")]);
    await expect(cache.load("f", 0)).rejects.toBeInstanceOf(KeyUnavailable);
    await expect(cache.load("f", 50)).rejects.toBeInstanceOf(KeyUnavailable);
    expect(calls).toHaveLength(1);
  });

  it("lines look-ups up beyond maxPendingFetches instead of refusing them, up to a limit", async () => {
    const answers: ((s: Session | null) => void)[] = [];
    const calls: string[] = [];
    const cache = new KeyCache(
      (flightId) => {
        calls.push(flightId);
        return new Promise((resolve) => answers.push(resolve));
      },
      { ...OPTIONS, maxEntries: 100, maxQueuedFetches: 2 },
    );
    const a = cache.load("a", 0);
    const b = cache.load("b", 0);
    const c = cache.load("c", 0);
    const d = cache.load("d", 0);
    await expect(cache.load("e", 0)).rejects.toMatchObject({ reason: "key_unavailable" });
    expect(calls).toEqual(["a", "b"]);
    expect(cache.waiting).toBe(2);
    expect(cache.load("c", 0)).toBe(c);
    answers[0]!(session("sa"));
    await a;
    expect(calls).toEqual(["a", "b", "c"]);
    answers[1]!(null);
    answers[2]!(session("sc"));
    await Promise.all([b, c]);
    answers[3]!(session("sd"));
    expect((await d).session?.id).toBe("sd");
    expect(cache.waiting).toBe(0);
  });

  it("spends a global budget on look-ups of flights it does not know, not on cached ones", async () => {
    const { cache, calls } = scripted(
      Array.from({ length: 20 }, () => null),
      { ...OPTIONS, maxEntries: 100, lookUpsPerSecond: 10, lookUpBurst: 3 },
    );
    for (const flight of ["a", "b", "c"]) await cache.load(flight, 1000);
    await expect(cache.load("d", 1000)).rejects.toMatchObject({ reason: "lookup_budget" });
    // Cached answers cost nothing; 100 ms later one token is back.
    expect(cache.peek("a", 1050)?.session).toBeNull();
    await cache.load("d", 1100);
    await expect(cache.load("e", 1100)).rejects.toMatchObject({ reason: "lookup_budget" });
    expect(calls).toEqual(["a", "b", "c", "d"]);
  });

  it("holds at most maxEntries flights, forgetting the least recently fetched", async () => {
    const { cache } = scripted([session("1"), session("2"), session("3"), session("4")]);
    for (const flight of ["a", "b", "c", "d"]) await cache.load(flight, 0);
    expect(cache.size).toBe(3);
    expect(cache.peek("a", 0)).toBeUndefined();
    expect(cache.peek("d", 0)?.session?.id).toBe("4");
    cache.evict("d");
    expect(cache.peek("d", 0)).toBeUndefined();
  });
});
