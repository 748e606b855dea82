import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { objectsOf, tileOf } from "../domain/elevationFixtures";
import { call, createAccount, type TestAccount } from "./helpers";

/** Two 3″ tiles holding one plane, continuous across their shared edge at 21°E. */
const plane = (lat: number, lng: number) => 100 + (lat - 10) * 1200 + (lng - 20) * 2400;

let account: TestAccount;
beforeAll(async () => {
  account = await createAccount();
  const objects = await objectsOf([
    tileOf(10, 20, 3, (k, m) => 100 + k + 2 * m),
    tileOf(10, 21, 3, (k, m) => 100 + k + 2 * (m + 1200)),
    tileOf(11, 20, 30, (k) => 5000 + k),
    // Four known samples in a void tile: (k,m) 10..11 hold 100 200 / 300 500.
    tileOf(12, 20, 3, (k, m) =>
      (k === 10 || k === 11) && (m === 10 || m === 11) ? [100, 200, 300, 500][(k - 10) * 2 + m - 10]! : null,
    ),
  ]);
  for (const [key, bytes] of objects) await env.ELEVATION.put(key, bytes);
});

const get = (path: string) => call(path, { apiKey: account.apiKey });
const points = (list: [number, number][]) => list.map((p) => p.join(",")).join(",");
const ele = async (list: [number, number][], query = "") => {
  const res = await get(`/elevation/v1/ele?points=${points(list)}${query}`);
  expect(res.status, res.text).toBe(200);
  return res.json.data as (number | null)[];
};

describe("GET /elevation/v1/ele", () => {
  it("gives the bilinear value computed by hand from known samples, and the nearest on request", async () => {
    // k=10.25, m=10.75: 0.75·0.25·100 + 0.75·0.75·200 + 0.25·0.25·300 + 0.25·0.75·500 = 243.75.
    const point: [number, number] = [12 + 10.25 / 1200, 20 + 10.75 / 1200];
    expect(await ele([point])).toEqual([244]);
    expect(await ele([point], "&interpolation=nearest")).toEqual([200]);
    expect(await ele([point], "&interpolation=bilinear")).toEqual([244]);
  });

  it("takes a sample exactly on a sample line, even beside a void; null where a void weighs", async () => {
    expect(await ele([[12 + 10 / 1200, 20 + 10 / 1200]])).toEqual([100]);
    expect(await ele([[12 + 11 / 1200, 20 + 10.5 / 1200]])).toEqual([400]);
    expect(await ele([[12 + 9.5 / 1200, 20 + 10 / 1200]])).toEqual([null]);
  });

  it("agrees across chunk and tile boundaries and on tile edges", async () => {
    const list: [number, number][] = [
      [10.2, 20.1], // k = 240: the row two chunks share
      [10 + 240.5 / 1200, 20 + 480.25 / 1200],
      [10.5, 21], // the edge both tiles hold
      [10.5, 20.99999],
      [10.5, 21.00001],
      [10, 20], // the corner with no neighbours loaded
      [11, 20.5], // top edge of the 3″ tile, bottom of the 30″ one: the finer serves
    ];
    expect(await ele(list)).toEqual(list.map(([lat, lng]) => Math.round(plane(lat, lng))));
  });

  it("answers null, in place, outside coverage and where no tile is loaded", async () => {
    expect(
      await ele([
        [10.5, 20.5],
        [60.5, 20.5],
        [-56.5, 20.5],
        [0, 0],
        [10.5, 20.5],
      ]),
    ).toEqual([1900, null, null, null, 1900]);
  });

  it("reads commas sent percent-encoded (CONTRACT §10)", async () => {
    const res = await get("/elevation/v1/ele?points=10.5%2C20.5%2C11.5%2C20.5");
    expect(res.json.data).toEqual([1900, 5060]);
  });

  it.each([
    ["odd count", "points=10.5,20.5,11"],
    ["not a number", "points=10.5,abc"],
    ["latitude out of range", "points=90.5,20"],
    ["longitude out of range", "points=10,-180.5"],
    ["empty", "points="],
    ["missing", "interpolation=nearest"],
  ])("refuses bad points (%s) with 400 naming points", async (_, query) => {
    const res = await get(`/elevation/v1/ele?${query}`);
    expect(res.status).toBe(400);
    expect(res.json.status).toBe("fail");
    expect(res.json.data.errors.map((e: { name: string }) => e.name)).toEqual(["points"]);
  });

  it("refuses an unknown interpolation, naming it", async () => {
    const res = await get("/elevation/v1/ele?points=10.5,20.5&interpolation=cubic");
    expect(res.status).toBe(400);
    expect(res.json.data.errors[0].name).toBe("interpolation");
  });

  it("requires an API key", async () => {
    const res = await call("/elevation/v1/ele?points=10.5,20.5");
    expect(res.status).toBe(401);
  });
});

describe("GET /elevation/v1/ele/carpet", () => {
  it("inflates the rectangle to whole samples, rows south to north, and agrees with /ele", async () => {
    const res = await get("/elevation/v1/ele/carpet?points=10.5001,20.9901,10.5049,21.0049");
    expect(res.status, res.text).toBe(200);
    const { bounds, carpet, stats } = res.json.data;
    expect(bounds).toEqual({ sw: [10.5, 20.99], ne: [10.505, 21.005] });
    // 10.5..10.505 at 3″ is 7 rows; 20.99..21.005 is 19 columns, across the tile edge at 21°.
    expect(carpet).toHaveLength(7);
    expect(carpet.every((row: number[]) => row.length === 19)).toBe(true);
    expect(carpet[1][0] - carpet[0][0]).toBe(1); // one sample north: k + 1
    expect(carpet[0][1] - carpet[0][0]).toBe(2); // one sample east: 2·(m + 1)
    const positions: [number, number][] = [];
    for (let r = 0; r < 7; r++)
      for (let c = 0; c < 19; c++) positions.push([(37800 + 3 * r) / 3600, (75564 + 3 * c) / 3600]);
    expect(carpet.flat()).toEqual(await ele(positions));
    const flat = carpet.flat() as number[];
    const avg = flat.reduce((a, b) => a + b, 0) / flat.length;
    expect(stats).toEqual({
      max: Math.max(...flat),
      min: Math.min(...flat),
      avg: Math.round(avg * 100) / 100,
    });
  });

  it("multiplies the step for a large rectangle so sides stay within 1024 samples", async () => {
    const res = await get("/elevation/v1/ele/carpet?points=10,20.2,11,20.25");
    expect(res.status).toBe(200);
    const { bounds, carpet } = res.json.data;
    // 1° at 3″ is 1201 samples; twice the step (6″) gives 601.
    expect(carpet).toHaveLength(601);
    expect(carpet[0]).toHaveLength(31);
    expect(bounds).toEqual({ sw: [10, 20.2], ne: [11, 20.25] });
    expect(carpet[1][0] - carpet[0][0]).toBe(2);
  });

  it("keeps nulls where part of the rectangle has no data", async () => {
    // k and m 9..12 around the four known samples: a 4×4 carpet with voids around them.
    const res = await get("/elevation/v1/ele/carpet?points=12.0079,20.0079,12.0096,20.0096");
    expect(res.status).toBe(200);
    const { carpet, stats } = res.json.data;
    expect(
      carpet
        .flat()
        .filter((v: number | null) => v !== null)
        .sort(),
    ).toEqual([100, 200, 300, 500]);
    expect(stats).toEqual({ max: 500, min: 100, avg: 275 });
  });

  it("is 404 where no data lies anywhere in the rectangle", async () => {
    expect((await get("/elevation/v1/ele/carpet?points=40,40,40.1,40.1")).status).toBe(404);
    expect((await get("/elevation/v1/ele/carpet?points=12.5,20.5,12.6,20.6")).status).toBe(404);
  });

  it.each([
    ["corners swapped", "points=10.6,20.6,10.5,20.5"],
    ["one corner", "points=10.5,20.5"],
    ["three corners", "points=10.5,20.5,10.6,20.6,10.7,20.7"],
    ["not numbers", "points=a,b,c,d"],
  ])("refuses a bad rectangle (%s) with 400 naming points", async (_, query) => {
    const res = await get(`/elevation/v1/ele/carpet?${query}`);
    expect(res.status).toBe(400);
    expect(res.json.data.errors[0].name).toBe("points");
  });
});

describe("GET /elevation/v1/ele/path", () => {
  it("profiles each leg at the source step, ending on its milestones as /ele does", async () => {
    const milestones: [number, number][] = [
      [10.5, 20.99],
      [10.505, 21.01], // across the tile edge
      [10.6, 21.01],
    ];
    const res = await get(`/elevation/v1/ele/path?points=${points(milestones)}`);
    expect(res.status, res.text).toBe(200);
    const segments = res.json.data;
    expect(segments).toHaveLength(2);
    // 0.02° of longitude at 3″ is 24 steps; 0.095° of latitude is 114.
    expect(segments.map((s: { profile: unknown[] }) => s.profile.length)).toEqual([25, 115]);
    expect(segments[0].from).toEqual(milestones[0]);
    expect(segments[0].to).toEqual(milestones[1]);
    expect(segments[0].step[0]).toBeCloseTo(0.005 / 24, 12);
    expect(segments[0].step[1]).toBeCloseTo(0.02 / 24, 12);
    const ends = await ele(milestones);
    expect([segments[0].profile[0], segments[0].profile.at(-1), segments[1].profile.at(-1)]).toEqual(ends);
    expect(segments[1].profile[0]).toBe(ends[1]);
    // Along the plane each step adds the same amount (within rounding).
    const profile = segments[0].profile as number[];
    for (const [i, v] of profile.entries()) {
      const exact = plane(10.5 + i * (0.005 / 24), 20.99 + i * (0.02 / 24));
      expect(Math.abs(v - exact)).toBeLessThanOrEqual(0.5 + 1e-9);
    }
  });

  it("gives null samples where the path leaves coverage", async () => {
    const res = await get("/elevation/v1/ele/path?points=10.9,20.5,10.9,23.5");
    expect(res.status).toBe(200);
    const profile = res.json.data[0].profile as (number | null)[];
    expect(profile[0]).toBe(Math.round(plane(10.9, 20.5)));
    expect(profile.at(-1)).toBeNull();
  });

  it.each([
    ["one milestone", "points=10.5,20.5"],
    ["odd count", "points=10.5,20.5,10.6"],
    ["latitude out of range", "points=10.5,20.5,-91,20"],
    ["too long at the source step", "points=-50,-170,50,170,10,20"],
  ])("refuses a bad path (%s) with 400 naming points", async (_, query) => {
    const res = await get(`/elevation/v1/ele/path?${query}`);
    expect(res.status).toBe(400);
    expect(res.json.data.errors[0].name).toBe("points");
  });
});
