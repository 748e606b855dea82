import { describe, expect, it } from "vitest";
import { MAX_IDS_PER_SESSION, RecentIds, SessionGuards } from "../../relay/sessionGuard";

/** mulberry32: a seeded generator, so a failure can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("RecentIds", () => {
  it("answers like a first-in-first-out set of its capacity, through growth and eviction", () => {
    for (const seed of [1, 2, 3, 4]) {
      const next = random(seed);
      const u32 = () => Math.floor(next() * 2 ** 32);
      // Few distinct high halves and small low ones: many identities share probe runs.
      const pool = Array.from({ length: 3000 }, () => [u32() % 7, u32() % 900] as const);
      let room = 4 * 64;
      const ids = new RecentIds();
      const order: string[] = [];
      const present = new Set<string>();
      let wrong = 0;
      for (let step = 0; step < 20_000; step++) {
        const [hi, lo] = pool[Math.floor(next() * pool.length)]!;
        const name = `${hi}/${lo}`;
        if (ids.has(hi, lo) !== present.has(name)) wrong++;
        if (present.has(name)) continue;
        const capacity = ids.capacity;
        ids.add(hi, lo, (extra) => {
          if (extra > room) return false;
          room -= extra;
          return true;
        });
        if (ids.capacity === capacity && order.length === capacity) present.delete(order.shift()!);
        order.push(name);
        present.add(name);
        if (ids.size !== present.size) wrong++;
      }
      expect(wrong).toBe(0);
      // The room allowed two doublings: 64 → 128 → 256, then the oldest go.
      expect(ids.capacity).toBe(256);
      for (const name of present) {
        const [hi, lo] = name.split("/").map(Number);
        expect(ids.has(hi!, lo!)).toBe(true);
      }
    }
  });

  it("takes a half as uint32 or int32 alike (the same 32 bits)", () => {
    const ids = new RecentIds();
    ids.add(0xffffffff, 0x80000000);
    expect(ids.has(-1, -(2 ** 31))).toBe(true);
    expect(ids.has(0xffffffff, 0x80000000)).toBe(true);
    expect(ids.has(0x7fffffff, 0x80000000)).toBe(false);
  });

  it("keeps at most MAX_IDS_PER_SESSION however much room there is", () => {
    const ids = new RecentIds();
    for (let i = 0; i < MAX_IDS_PER_SESSION + 100; i++) ids.add(i, i * 7919, () => true);
    expect(ids.capacity).toBe(MAX_IDS_PER_SESSION);
    expect(ids.has(0, 0)).toBe(false);
    expect(ids.has(100, 100 * 7919)).toBe(true);
    expect(ids.has(MAX_IDS_PER_SESSION + 99, (MAX_IDS_PER_SESSION + 99) * 7919)).toBe(true);
  });
});

describe("SessionGuards", () => {
  it("limits each session by its own bucket and forgets the least recently active session", () => {
    const guards = new SessionGuards({ perSecond: 10, burst: 3, maxSessions: 2, maxIds: 1000 });
    const a = guards.get("a", 0);
    expect([a.take(0), a.take(0), a.take(0), a.take(0)]).toEqual([true, true, true, false]);
    expect(guards.get("b", 0).take(0)).toBe(true);
    expect(a.take(100)).toBe(true);
    guards.remember(a, 1, 2);
    guards.get("a", 0);
    guards.get("c", 0);
    expect(guards.size).toBe(2);
    // "b" was the least recently active; "a" kept its memory.
    expect(guards.seen(guards.get("a", 0), 1, 2)).toBe(true);
    expect(guards.get("b", 0).take(0)).toBe(true);
  });
});
