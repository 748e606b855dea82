import { env } from "cloudflare:test";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import * as schema from "../../schema";
import { flightState } from "../../worker/domain/flightState";
import { bboxOf, type Polygon, type Position } from "../../worker/domain/geojson";
import {
  deleteInactiveFlight,
  deletePlan,
  endFlight,
  type FlightCursor,
  type FlightFilter,
  type FlightRow,
  findFlight,
  findPlan,
  insertFlight,
  insertPlan,
  listFlights,
  listIntersectingFlights,
  type NewFlight,
  type NewFlightPlan,
  submitPlan,
} from "../../worker/store/flights";
import { createAccount, type TestAccount, tokenFor } from "./helpers";

/** The flight store's queries run against the test D1, apart from the routes (Cloudflare's D1 example). */

const db = drizzle(env.DB, { schema });
const hour = 3_600_000;
const T0 = Date.UTC(2026, 0, 1, 12);

interface Owner {
  accountId: string;
  pilotId: string;
}

async function newOwner(account?: TestAccount): Promise<Owner> {
  const owning = account ?? (await createAccount());
  const { pilotId } = await tokenFor(owning, `pilot-${crypto.randomUUID()}`);
  return { accountId: owning.accountId, pilotId };
}

function squareAt(lng: number, lat: number, size = 0.01): Polygon {
  const ring: Position[] = [
    [lng, lat],
    [lng + size, lat],
    [lng + size, lat + size],
    [lng, lat + size],
    [lng, lat],
  ];
  return { type: "Polygon", coordinates: [ring] };
}

const newId = (kind: string) => `${kind}|${crypto.randomUUID().replace(/-/g, "").slice(0, 22)}`;

function flightRow(owner: Owner, overrides: Partial<NewFlight> = {}): NewFlight {
  const area = overrides.geometry ?? squareAt(-118.49, 34.01);
  return {
    id: newId("flight"),
    accountId: owner.accountId,
    pilotId: owner.pilotId,
    flightPlanId: null,
    aircraftId: null,
    latitude: area.coordinates[0]![0]![1],
    longitude: area.coordinates[0]![0]![0],
    buffer: 0,
    geometry: area,
    ...bboxOf(area),
    maxAltitude: 100,
    startTime: T0,
    endTime: T0 + hour,
    createdAt: T0,
    public: false,
    notify: false,
    city: null,
    state: null,
    country: null,
    authorizations: [],
    ...overrides,
  };
}

/** A plan row over `area`, taking off at its centre, for an hour from T0 unless overridden. */
function planRow(owner: Owner, area: Polygon, overrides: Partial<NewFlightPlan> = {}): NewFlightPlan {
  const box = bboxOf(area);
  return {
    id: newId("flight_plan"),
    accountId: owner.accountId,
    pilotId: owner.pilotId,
    aircraftId: null,
    takeoffLatitude: (box.minLat + box.maxLat) / 2,
    takeoffLongitude: (box.minLng + box.maxLng) / 2,
    startTime: T0,
    endTime: T0 + hour,
    maxAltitudeAgl: 100,
    minAltitudeAgl: 0,
    buffer: 0,
    geometry: area,
    area,
    ...box,
    flightDescription: "",
    rulesets: [],
    flightFeatures: {},
    flightId: null,
    createdAt: T0,
    ...overrides,
  };
}

async function flightCount(pilotId: string): Promise<number | null> {
  return env.DB.prepare("SELECT flight_count AS n FROM pilots WHERE id = ?").bind(pilotId).first("n");
}

const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

/** What a submit decides beyond the plan: the new flight's id, time, visibility, place and authorizations. */
const submission = (flightId: string) => ({
  flightId,
  createdAt: T0 + 5,
  public: true,
  city: "Knoxville",
  state: "Tennessee",
  country: "USA",
  authorizations: [{ status: "accepted" }],
});

describe("listFlights", () => {
  it("filters in SQL, newest start first, with the total of all that match", async () => {
    const shared = await createAccount();
    const a = await newOwner(shared);
    const b = await newOwner(shared);
    const account = { accountId: shared.accountId };
    const first = await insertFlight(db, flightRow(a, { country: "USA" }));
    const second = await insertFlight(
      db,
      flightRow(a, { startTime: T0 + hour, endTime: T0 + 2 * hour, public: true, city: "Knoxville" }),
    );
    const third = await insertFlight(db, flightRow(a, { startTime: T0 + 2 * hour, endTime: T0 + 3 * hour }));
    const others = await insertFlight(db, flightRow(b, { startTime: T0 + 3 * hour, public: true }));
    const list = (filter: Partial<FlightFilter>) =>
      listFlights(db, { ...account, onlyPublic: false, ...filter }, 10, undefined);

    const own = await list({ pilotId: a.pilotId });
    expect(ids(own.rows)).toEqual([third.id, second.id, first.id]);
    // Areas come back as stored, unparsed, for the page to pass on.
    expect(JSON.parse(own.rows[2]!.geometryJson)).toEqual(first.geometry);
    expect(own.rows[2]).not.toHaveProperty("geometry");
    expect(own.total).toBe(3);
    const publicOnes = await list({ onlyPublic: true });
    expect(ids(publicOnes.rows)).toEqual([others.id, second.id]);
    expect(publicOnes.total).toBe(2);
    expect(ids((await list({ pilotId: a.pilotId, startAfter: T0 + hour })).rows)).toEqual([
      third.id,
      second.id,
    ]);
    expect(ids((await list({ pilotId: a.pilotId, endBefore: T0 + 1.5 * hour })).rows)).toEqual([first.id]);
    expect(ids((await list({ pilotId: a.pilotId, startBefore: T0, endAfter: T0 })).rows)).toEqual([first.id]);
    expect(ids((await list({ city: "Knoxville" })).rows)).toEqual([second.id]);
    expect(ids((await list({ country: "USA" })).rows)).toEqual([first.id]);

    const stranger = await listFlights(
      db,
      { accountId: (await createAccount()).accountId, onlyPublic: true },
      10,
      undefined,
    );
    expect(stranger).toEqual({ rows: [], total: 0 });
  });

  it("pages by keyset: equal start times in id order, no page repeating or skipping a flight", async () => {
    const owner = await newOwner();
    const inserted: string[] = [];
    for (let i = 0; i < 5; i++) inserted.push((await insertFlight(db, flightRow(owner))).id);
    const filter: FlightFilter = { accountId: owner.accountId, pilotId: owner.pilotId, onlyPublic: false };
    const seen: string[] = [];
    let cursor: FlightCursor | undefined;
    for (let page = 0; page < 3; page++) {
      const { rows, total } = await listFlights(db, filter, 2, cursor);
      expect(total).toBe(5);
      seen.push(...ids(rows));
      const last = rows.at(-1)!;
      cursor = { startTime: last.startTime, id: last.id };
    }
    expect(seen).toEqual([...inserted].sort().reverse());
    // Past the last page the total still comes back (from its own count).
    expect(await listFlights(db, filter, 2, cursor)).toEqual({ rows: [], total: 5 });
  });

  it("takes the total of a pilot's whole own history from the pilot's flight count", async () => {
    const owner = await newOwner();
    await insertFlight(db, flightRow(owner));
    await insertFlight(db, flightRow(owner, { startTime: T0 + hour }));
    expect(await flightCount(owner.pilotId)).toBe(2);
    await env.DB.prepare("UPDATE pilots SET flight_count = 40 WHERE id = ?").bind(owner.pilotId).run();
    const filter: FlightFilter = { accountId: owner.accountId, pilotId: owner.pilotId, onlyPublic: false };
    expect((await listFlights(db, filter, 10, undefined)).total).toBe(40);
    // Any narrowing counts the rows instead.
    expect((await listFlights(db, { ...filter, startAfter: T0 }, 10, undefined)).total).toBe(2);
  });
});

describe("listIntersectingFlights", () => {
  it("keeps flights whose area meets the geometry, not those whose box merely overlaps", async () => {
    const owner = await newOwner();
    const triangle: Polygon = {
      type: "Polygon",
      coordinates: [
        [
          [10, 10],
          [11, 10],
          [10, 11],
          [10, 10],
        ],
      ],
    };
    await insertFlight(db, flightRow(owner, { geometry: triangle }));
    const corner = await insertFlight(db, flightRow(owner, { geometry: squareAt(10.9, 10.9, 0.05) }));
    const filter: FlightFilter = { accountId: owner.accountId, pilotId: owner.pilotId, onlyPublic: false };
    const found = await listIntersectingFlights(db, filter, squareAt(10.85, 10.85, 0.1), 10, undefined);
    expect(ids(found.rows)).toEqual([corner.id]);
    expect(found.total).toBe(1);
  });
});

describe("submitPlan", () => {
  function plan(owner: Owner) {
    const takeoff = { takeoffLatitude: 35.965, takeoffLongitude: -83.915 };
    return insertPlan(db, planRow(owner, squareAt(-83.92, 35.96), { ...takeoff, maxAltitudeAgl: 60 }));
  }

  it("lets exactly one of racing submits create the flight, from the plan's own columns", async () => {
    const owner = await newOwner();
    const row = await plan(owner);
    const flightIds = [newId("flight"), newId("flight"), newId("flight")];
    const results = await Promise.all(flightIds.map((id) => submitPlan(db, row, submission(id))));
    const created = results.filter((r): r is FlightRow => r !== null);
    expect(created).toHaveLength(1);
    const flight = created[0]!;
    expect(flight).toMatchObject({
      flightPlanId: row.id,
      accountId: owner.accountId,
      pilotId: owner.pilotId,
      latitude: 35.965,
      longitude: -83.915,
      geometry: row.area,
      maxAltitude: 60,
      startTime: T0,
      endTime: T0 + hour,
      createdAt: T0 + 5,
      public: true,
      notify: false,
      city: "Knoxville",
      state: "Tennessee",
      country: "USA",
      authorizations: [{ status: "accepted" }],
    });
    expect((await findPlan(db, owner.accountId, row.id))?.flightId).toBe(flight.id);
    expect(await flightCount(owner.pilotId)).toBe(1);
    const losers = flightIds.filter((id) => id !== flight.id);
    for (const id of losers) expect(await findFlight(db, owner.accountId, id)).toBeNull();
  });
});

describe("deleting", () => {
  it("deletes a planned or ended flight, never an active one, counting it down once when deletes race", async () => {
    const owner = await newOwner();
    const now = Date.now();
    const planned = await insertFlight(
      db,
      flightRow(owner, { startTime: now + hour, endTime: now + 2 * hour }),
    );
    const started = await insertFlight(db, flightRow(owner, { startTime: now - hour, endTime: now + hour }));
    const ended = await insertFlight(
      db,
      flightRow(owner, { startTime: now - 2 * hour, endTime: now - hour }),
    );
    expect(await flightCount(owner.pilotId)).toBe(3);
    const results = await Promise.all([
      deleteInactiveFlight(db, planned, now),
      deleteInactiveFlight(db, planned, now),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await findFlight(db, owner.accountId, planned.id)).toBeNull();
    expect(await deleteInactiveFlight(db, started, now)).toBe(false);
    expect(await findFlight(db, owner.accountId, started.id)).not.toBeNull();
    expect(await deleteInactiveFlight(db, ended, now)).toBe(true);
    expect(await flightCount(owner.pilotId)).toBe(1);
  });

  it("ends a planned flight at once: it never flies, and is then ended, not active", async () => {
    const owner = await newOwner();
    const now = Date.now();
    const planned = await insertFlight(
      db,
      flightRow(owner, { startTime: now + hour, endTime: now + 2 * hour }),
    );
    const ended = await endFlight(db, planned.id, now);
    expect(ended).toMatchObject({ startTime: now, endTime: now });
    expect(flightState(ended!, now)).toBe("ended");
    expect(await endFlight(db, planned.id, now + 5)).toBeNull();
    expect(await deleteInactiveFlight(db, ended!, now)).toBe(true);
  });

  it("deletes a submitted plan and keeps its flight (CONTRACT §4)", async () => {
    const owner = await newOwner();
    const now = Date.now();
    const area = squareAt(-118.49, 34.01);
    const submitted = async (startTime: number) => {
      const plan = await insertPlan(
        db,
        planRow(owner, area, { startTime, endTime: startTime + hour, maxAltitudeAgl: 100, createdAt: now }),
      );
      const flight = await submitPlan(db, plan, { ...submission(newId("flight")), createdAt: now });
      return { plan, flightId: flight!.id };
    };
    const soon = await submitted(now + hour);
    expect(await deletePlan(db, soon.plan.id)).toBe(true);
    expect(await findPlan(db, owner.accountId, soon.plan.id)).toBeNull();
    expect(await findFlight(db, owner.accountId, soon.flightId)).not.toBeNull();
    expect(await deletePlan(db, soon.plan.id)).toBe(false);
    expect(await flightCount(owner.pilotId)).toBe(1);
  });
});

describe("migration 0019 (plans keep no request header)", () => {
  it("removes the accept-language echoes already stored in a plan's flight_features and nothing else", async () => {
    const owner = await newOwner();
    const echoed = await insertPlan(
      db,
      planRow(owner, squareAt(-83.92, 35.96), {
        flightFeatures: { "accept-language": "en-US", uav_weight: 1.5, flight_vlos: true },
      }),
    );
    const plain = await insertPlan(
      db,
      planRow(owner, squareAt(-83.92, 35.96), { flightFeatures: { uav_weight: 2 } }),
    );
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith("0019_"));
    const cleanup = migration?.queries.find((q) => q.includes("json_remove"));
    expect(cleanup).toBeDefined();
    await env.DB.prepare(cleanup!).run();
    expect((await findPlan(db, owner.accountId, echoed.id))?.flightFeatures).toEqual({
      uav_weight: 1.5,
      flight_vlos: true,
    });
    expect((await findPlan(db, owner.accountId, plain.id))?.flightFeatures).toEqual({ uav_weight: 2 });
  });
});
