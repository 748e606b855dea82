import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { objectsOf, tileOf } from "../domain/elevationFixtures";
import { call, createAccount, type TestAccount } from "./helpers";

/** The POST forms of the elevation API: the same answers as GET, for lists longer than a URL holds. */

let account: TestAccount;
beforeAll(async () => {
  account = await createAccount();
  const objects = await objectsOf([
    tileOf(10, 20, 3, (k, m) => 100 + k + 2 * m),
    tileOf(10, 21, 3, (k, m) => 100 + k + 2 * (m + 1200)),
    // Voids in a quarter of the tile, so some answers are null.
    tileOf(12, 20, 3, (k, m) => (k < 600 && m < 600 ? null : k - m)),
  ]);
  for (const [key, bytes] of objects) await env.ELEVATION.put(key, bytes);
});

type LatLng = [number, number];
const flat = (list: LatLng[]) => list.map((p) => p.join(",")).join(",");
const get = (path: string) => call(path, { apiKey: account.apiKey });
const post = (path: string, body: unknown) => call(path, { method: "POST", apiKey: account.apiKey, body });

/** A spread of points over loaded tiles, voids and places without data. */
function spread(count: number, seed = 1): LatLng[] {
  return Array.from({ length: count }, (_, i) => {
    const t = (i * 7919 + seed * 104_729) % 10_007;
    return [10 + (t % 97) * 0.0301 + (i % 3), 20 + ((t * 31) % 1999) * 0.00097] as LatLng;
  });
}

describe("POST /elevation/v1/ele", () => {
  it("answers 10,000 points as GET answers them in smaller parts", async () => {
    const list = spread(10_000);
    const res = await post("/elevation/v1/ele", { points: list });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    const values = res.json.data as (number | null)[];
    expect(values).toHaveLength(10_000);
    const parts: (number | null)[] = [];
    for (let i = 0; i < list.length; i += 500) {
      const part = await get(`/elevation/v1/ele?points=${flat(list.slice(i, i + 500))}`);
      expect(part.status).toBe(200);
      parts.push(...part.json.data);
    }
    expect(values).toEqual(parts);
    // The spread meets data, voids and unloaded places.
    expect(values.some((v) => v === null)).toBe(true);
    expect(new Set(values.filter((v) => v !== null)).size).toBeGreaterThan(100);
  });

  it("takes the GET form's string and the interpolation too", async () => {
    const list = spread(40, 2);
    const byGet = await get(`/elevation/v1/ele?points=${flat(list)}&interpolation=nearest`);
    const byString = await post("/elevation/v1/ele", { points: flat(list), interpolation: "nearest" });
    const byPairs = await post("/elevation/v1/ele", { points: list, interpolation: "nearest" });
    expect(byString.json.data).toEqual(byGet.json.data);
    expect(byPairs.json.data).toEqual(byGet.json.data);
    const bilinear = await post("/elevation/v1/ele", { points: list });
    expect(bilinear.json.data).toEqual((await get(`/elevation/v1/ele?points=${flat(list)}`)).json.data);
  });

  it("refuses 10,001 points with the same 400 as GET", async () => {
    const list = spread(10_001);
    const byPost = await post("/elevation/v1/ele", { points: list });
    const byGet = await get(`/elevation/v1/ele?points=${flat(list)}`);
    expect(byPost.status).toBe(400);
    expect(byPost.json).toEqual(byGet.json);
    expect(byPost.json.data.errors[0]).toEqual({
      name: "points",
      message: "10001 points; at most 10000 in one request",
    });
  });

  it.each([
    ["a latitude out of range", [[90.5, 20]], "points=90.5,20"],
    ["a longitude out of range", [[10, -180.5]], "points=10,-180.5"],
  ])("refuses %s with the same 400 as GET", async (_, pairs, query) => {
    const byPost = await post("/elevation/v1/ele", { points: pairs });
    expect(byPost.status).toBe(400);
    expect(byPost.json).toEqual((await get(`/elevation/v1/ele?${query}`)).json);
  });

  it.each([
    ["a pair of three", { points: [[10, 20, 30]] }],
    ["an empty list", { points: [] }],
    ["text in a pair", { points: [["10", "20"]] }],
    ["no points", { interpolation: "nearest" }],
    ["an object", { points: { lat: 10, lng: 20 } }],
  ])("refuses %s with 400 naming points", async (_, body) => {
    const res = await post("/elevation/v1/ele", body);
    expect(res.status).toBe(400);
    expect(res.json.status).toBe("fail");
    expect(res.json.data.errors[0].name).toMatch(/^points/);
  });

  it("refuses an unknown interpolation, a body that is not JSON, and a missing API key", async () => {
    const cubic = await post("/elevation/v1/ele", { points: [[10.5, 20.5]], interpolation: "cubic" });
    expect(cubic.status).toBe(400);
    expect(cubic.json.data.errors[0].name).toBe("interpolation");
    const text = await call("/elevation/v1/ele", {
      method: "POST",
      apiKey: account.apiKey,
      body: "points=10.5,20.5",
      headers: { "Content-Type": "text/plain" },
    });
    expect(text.status).toBe(415);
    expect(text.json.status).toBe("fail");
    const anonymous = await call("/elevation/v1/ele", { method: "POST", body: { points: [[10.5, 20.5]] } });
    expect(anonymous.status).toBe(401);
  });
});

describe("POST /elevation/v1/ele/path and /ele/carpet", () => {
  it("profile a path as GET does", async () => {
    const milestones: LatLng[] = [
      [10.5, 20.99],
      [10.505, 21.01],
      [10.6, 21.01],
      [12.1, 20.2],
    ];
    const byGet = await get(`/elevation/v1/ele/path?points=${flat(milestones)}`);
    expect(byGet.status).toBe(200);
    const byPost = await post("/elevation/v1/ele/path", { points: milestones });
    expect(byPost.status).toBe(200);
    expect(byPost.json).toEqual(byGet.json);
    expect((await post("/elevation/v1/ele/path", { points: flat(milestones) })).json).toEqual(byGet.json);
    const one = await post("/elevation/v1/ele/path", { points: [[10.5, 20.5]] });
    expect(one.status).toBe(400);
    expect(one.json).toEqual((await get("/elevation/v1/ele/path?points=10.5,20.5")).json);
  });

  it("take a path of 10,000 milestones within the sample limit", async () => {
    const milestones = Array.from({ length: 10_000 }, (_, i) => [10.5 + i * 1e-5, 20.5] as LatLng);
    const res = await post("/elevation/v1/ele/path", { points: milestones });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.json.data).toHaveLength(9_999);
  });

  it("draw a carpet as GET does, and refuse swapped corners alike", async () => {
    const corners: LatLng[] = [
      [10.5001, 20.9901],
      [10.5049, 21.0049],
    ];
    const byGet = await get(`/elevation/v1/ele/carpet?points=${flat(corners)}`);
    expect(byGet.status).toBe(200);
    const byPost = await post("/elevation/v1/ele/carpet", { points: corners });
    expect(byPost.json).toEqual(byGet.json);
    const swapped = await post("/elevation/v1/ele/carpet", { points: [corners[1], corners[0]] });
    expect(swapped.status).toBe(400);
    expect(swapped.json).toEqual(
      (await get(`/elevation/v1/ele/carpet?points=${flat([corners[1]!, corners[0]!])}`)).json,
    );
  });
});
