import booleanIntersects from "@turf/boolean-intersects";
import { and, desc, eq, getTableColumns, gte, lte, or, type SQL, sql } from "drizzle-orm";
import { aircraft, aircraftModels, flightPlans, flights, manufacturers, pilots } from "../../schema";
import { type BBox, bboxOf, type Geometry } from "../domain/geojson";
import type { Db } from "../env";
import { closeStatement } from "./telemetrySessions";

export type FlightPlanRow = typeof flightPlans.$inferSelect;
export type FlightRow = typeof flights.$inferSelect;
export type NewFlightPlan = typeof flightPlans.$inferInsert;
export type NewFlight = typeof flights.$inferInsert;

export async function insertPlan(db: Db, plan: NewFlightPlan): Promise<FlightPlanRow> {
  return db.insert(flightPlans).values(plan).returning().get();
}

/** A plan of the account, or null; ownership is the caller's decision (403 vs 404). */
export async function findPlan(db: Db, accountId: string, planId: string): Promise<FlightPlanRow | null> {
  const row = await db
    .select()
    .from(flightPlans)
    .where(and(eq(flightPlans.id, planId), eq(flightPlans.accountId, accountId)))
    .get();
  return row ?? null;
}

/** Updates a plan only while it is not submitted; null when a submit won the race. */
export async function updateUnsubmittedPlan(
  db: Db,
  planId: string,
  changes: Partial<NewFlightPlan>,
): Promise<FlightPlanRow | null> {
  const row = await db
    .update(flightPlans)
    .set(changes)
    .where(and(eq(flightPlans.id, planId), sql`${flightPlans.flightId} IS NULL`))
    .returning()
    .get();
  return row ?? null;
}

/** What a submit adds to the plan's own columns to make its flight. */
export interface PlanSubmission {
  flightId: string;
  createdAt: number;
  public: boolean;
  city: string | null;
  state: string | null;
  country: string | null;
  authorizations: unknown[];
}

/**
 * Claims the plan and creates its flight in one transaction: of concurrent submits exactly one
 * claims it (the UPDATE's `flight_id IS NULL` guard), and only the claimant's INSERT selects a row.
 * Every other column of the flight is copied from the plan's row.
 */
export async function submitPlan(
  db: Db,
  plan: Pick<FlightPlanRow, "id" | "pilotId">,
  submission: PlanSubmission,
): Promise<FlightRow | null> {
  const { flightId } = submission;
  const [, inserted] = await db.batch([
    db
      .update(flightPlans)
      .set({ flightId })
      .where(and(eq(flightPlans.id, plan.id), sql`${flightPlans.flightId} IS NULL`)),
    db
      .insert(flights)
      .select(
        db
          .select({
            id: sql`${flightId}`.as("id"),
            accountId: flightPlans.accountId,
            pilotId: flightPlans.pilotId,
            flightPlanId: flightPlans.id,
            aircraftId: flightPlans.aircraftId,
            latitude: flightPlans.takeoffLatitude,
            longitude: flightPlans.takeoffLongitude,
            buffer: flightPlans.buffer,
            geometry: flightPlans.area,
            minLat: flightPlans.minLat,
            minLng: flightPlans.minLng,
            maxLat: flightPlans.maxLat,
            maxLng: flightPlans.maxLng,
            maxAltitude: flightPlans.maxAltitudeAgl,
            startTime: flightPlans.startTime,
            endTime: flightPlans.endTime,
            createdAt: sql`${submission.createdAt}`.as("created_at"),
            public: sql`${submission.public ? 1 : 0}`.as("public"),
            // A plan's flight never asks for notifications (only the SDKs' direct creation does).
            notify: sql`0`.as("notify"),
            city: sql`${submission.city}`.as("city"),
            state: sql`${submission.state}`.as("state"),
            country: sql`${submission.country}`.as("country"),
            authorizations: sql`${JSON.stringify(submission.authorizations)}`.as("authorizations"),
          })
          .from(flightPlans)
          .where(and(eq(flightPlans.id, plan.id), eq(flightPlans.flightId, flightId))),
      )
      .returning(),
    countFlightIfPresent(db, plan.pilotId, flightId, 1),
  ]);
  return inserted[0] ?? null;
}

/** Moves the pilot's flight count by `delta` when the flight now exists (+1) or no longer does (−1). */
function countFlightIfPresent(db: Db, pilotId: string, flightId: string, delta: 1 | -1) {
  const present = sql`EXISTS (SELECT 1 FROM flights WHERE id = ${flightId})`;
  return db
    .update(pilots)
    .set({ flightCount: sql`${pilots.flightCount} + ${delta}` })
    .where(and(eq(pilots.id, pilotId), delta === 1 ? present : sql`NOT ${present}`));
}

export async function insertFlight(db: Db, flight: NewFlight): Promise<FlightRow> {
  const [inserted] = await db.batch([
    db.insert(flights).values(flight).returning(),
    countFlightIfPresent(db, flight.pilotId, flight.id, 1),
  ]);
  return inserted[0]!;
}

export async function findFlight(db: Db, accountId: string, flightId: string): Promise<FlightRow | null> {
  const row = await db
    .select()
    .from(flights)
    .where(and(eq(flights.id, flightId), eq(flights.accountId, accountId)))
    .get();
  return row ?? null;
}

/**
 * Ends a flight now (CONTRACT §4): an active one at `now`, a planned one at once (both its times
 * become `now`: it never flies). Null when the flight was neither at `now` (it ended meanwhile).
 */
export async function endFlight(db: Db, flightId: string, now: number): Promise<FlightRow | null> {
  const row = await endStatement(db, flightId, now).get();
  return row ?? null;
}

function endStatement(db: Db, flightId: string, now: number) {
  return db
    .update(flights)
    .set({
      endTime: now,
      startTime: sql`CASE WHEN ${flights.startTime} > ${now} THEN ${now} ELSE ${flights.startTime} END`,
    })
    .where(and(eq(flights.id, flightId), gte(flights.endTime, now), notEnded(now)))
    .returning();
}

/**
 * Ends a flight now (endFlight) and closes its telemetry session in the same round trip: null when
 * the flight was not ended here (its session is closed all the same: whoever ended it closes it too).
 */
export async function endFlightClosingSessions(
  db: Db,
  flightId: string,
  now: number,
): Promise<FlightRow | null> {
  const [ended] = await db.batch([endStatement(db, flightId, now), closeStatement(db, flightId, now)]);
  return ended[0] ?? null;
}

/** Not ended at `now`, as flightState says: a flight without duration is ended once reached. */
const notEnded = (now: number) =>
  sql`(${flights.startTime} > ${now} OR (${flights.endTime} >= ${now} AND ${flights.startTime} < ${flights.endTime}))`;

/** Not active at `now`, as flightState says: the one condition under which a flight may be deleted. */
const notActive = (flightId: string, now: number) =>
  and(
    eq(flights.id, flightId),
    sql`NOT (${flights.startTime} <= ${now} AND ${flights.endTime} >= ${now} AND ${flights.startTime} < ${flights.endTime})`,
  );

/**
 * Deletes a planned or ended flight, and takes it out of its pilot's count in the same batch (with
 * the same condition, so a concurrent second delete moves nothing); false when it is active.
 */
export async function deleteInactiveFlight(db: Db, flight: FlightRow, now: number): Promise<boolean> {
  const [, deleted] = await db.batch([
    db
      .update(pilots)
      .set({ flightCount: sql`${pilots.flightCount} - 1` })
      .where(
        and(
          eq(pilots.id, flight.pilotId),
          sql`EXISTS (SELECT 1 FROM flights WHERE ${notActive(flight.id, now)})`,
        ),
      ),
    db.delete(flights).where(notActive(flight.id, now)).returning({ id: flights.id }),
  ]);
  return deleted.length > 0;
}

/**
 * Deletes a plan. A submitted plan's flight stays (CONTRACT §4): the SDKs delete the plan, then end
 * or delete the flight; the flight keeps its `flight_plan_id`, whose plan then reads as 404.
 */
export async function deletePlan(db: Db, planId: string): Promise<boolean> {
  const deleted = await db
    .delete(flightPlans)
    .where(eq(flightPlans.id, planId))
    .returning({ id: flightPlans.id });
  return deleted.length > 0;
}

export interface FlightFilter {
  accountId: string;
  /** Only this pilot's flights. */
  pilotId?: string;
  /** Private flights are included only for this pilot (the token's). */
  viewerPilotId?: string;
  onlyPublic: boolean;
  startAfter?: number;
  startBefore?: number;
  endAfter?: number;
  endBefore?: number;
  bbox?: BBox;
  country?: string;
  state?: string;
  city?: string;
}

/** Keyset position: newest start_time first, then id, so pages never repeat or skip a flight. */
export interface FlightCursor {
  startTime: number;
  id: string;
}

function filterConditions(filter: FlightFilter): SQL[] {
  const conditions: SQL[] = [eq(flights.accountId, filter.accountId)];
  if (filter.pilotId) conditions.push(eq(flights.pilotId, filter.pilotId));
  if (filter.onlyPublic) conditions.push(eq(flights.public, true));
  if (filter.startAfter !== undefined) conditions.push(gte(flights.startTime, filter.startAfter));
  if (filter.startBefore !== undefined) conditions.push(lte(flights.startTime, filter.startBefore));
  if (filter.endAfter !== undefined) conditions.push(gte(flights.endTime, filter.endAfter));
  if (filter.endBefore !== undefined) conditions.push(lte(flights.endTime, filter.endBefore));
  if (filter.country) conditions.push(eq(flights.country, filter.country));
  if (filter.state) conditions.push(eq(flights.state, filter.state));
  if (filter.city) conditions.push(eq(flights.city, filter.city));
  if (filter.bbox) {
    // Spatial pre-filter: bounding boxes overlap; the exact intersection test follows in code.
    const b = filter.bbox;
    conditions.push(
      gte(flights.maxLat, b.minLat),
      lte(flights.minLat, b.maxLat),
      gte(flights.maxLng, b.minLng),
      lte(flights.minLng, b.maxLng),
    );
  }
  return conditions;
}

function afterCursor(cursor: FlightCursor): SQL {
  return or(
    sql`${flights.startTime} < ${cursor.startTime}`,
    and(eq(flights.startTime, cursor.startTime), sql`${flights.id} < ${cursor.id}`),
  ) as SQL;
}

/** A listed flight with its area as stored (JSON text): a page passes it on without parsing it. */
export type ListedFlight = Omit<FlightRow, "geometry"> & { geometryJson: string };

const { geometry: _geometry, ...otherColumns } = getTableColumns(flights);
const listedColumns = { ...otherColumns, geometryJson: sql<string>`${flights.geometry}` };

/**
 * One page of flights and the total that match. One statement: the total is an uncorrelated
 * subquery that SQLite evaluates once, cheaper than a second statement in a batch.
 */
export async function listFlights(
  db: Db,
  filter: FlightFilter,
  limit: number,
  cursor: FlightCursor | undefined,
): Promise<{ rows: ListedFlight[]; total: number }> {
  const conditions = and(...filterConditions(filter));
  const pageConditions = cursor ? and(conditions, afterCursor(cursor)) : conditions;
  const total = isWholeHistory(filter)
    ? sql<number>`(SELECT flight_count FROM pilots WHERE id = ${filter.pilotId})`
    : sql<number>`(SELECT count(*) FROM flights WHERE ${conditions})`;
  const page = await db
    .select({ flight: listedColumns, total })
    .from(flights)
    .where(pageConditions)
    .orderBy(desc(flights.startTime), desc(flights.id))
    .limit(limit);
  if (page.length > 0) return { rows: page.map((p) => p.flight), total: Number(page[0]!.total) };
  // Past the last page the subquery had no row to ride on.
  const [count] = await db.select({ total: sql<number>`count(*)` }).from(flights).where(conditions);
  return { rows: [], total: Number(count?.total ?? 0) };
}

/** A pilot's own list without filters: its total is the pilot's flight count. */
function isWholeHistory(filter: FlightFilter): boolean {
  const { accountId: _, pilotId, onlyPublic, ...narrowing } = filter;
  return pilotId !== undefined && !onlyPublic && Object.values(narrowing).every((v) => v === undefined);
}

/** A geometry-filtered list tests at most this many bbox candidates exactly. */
const MAX_GEOMETRY_CANDIDATES = 5000;

/** Flights whose area intersects `area`: the SQL bbox pre-filter, then the exact test, then the keyset. */
export async function listIntersectingFlights(
  db: Db,
  filter: FlightFilter,
  area: Geometry,
  limit: number,
  cursor: FlightCursor | undefined,
): Promise<{ rows: FlightRow[]; total: number }> {
  const candidates = await db
    .select()
    .from(flights)
    .where(and(...filterConditions({ ...filter, bbox: bboxOf(area) })))
    .orderBy(desc(flights.startTime), desc(flights.id))
    .limit(MAX_GEOMETRY_CANDIDATES);
  const matching = candidates.filter((f) => booleanIntersects(f.geometry, area));
  const after = cursor ? matching.filter((f) => isAfter(f, cursor)) : matching;
  return { rows: after.slice(0, limit), total: matching.length };
}

/** The keyset order in code, as `afterCursor` says it in SQL. */
function isAfter(flight: FlightRow, cursor: FlightCursor): boolean {
  return (
    flight.startTime < cursor.startTime || (flight.startTime === cursor.startTime && flight.id < cursor.id)
  );
}

export interface FlightEnhancement {
  pilot: { id: string; username: string; picture_url: string | null };
  aircraft: {
    id: string;
    nickname: string;
    model: { id: string; name: string; manufacturer: { id: string; name: string; url: string | null } };
  } | null;
}

/** Pilot and aircraft sub-objects for `enhance=true`, fetched for a whole page at once. */
export async function enhancements(
  db: Db,
  rows: Pick<FlightRow, "id" | "pilotId" | "aircraftId">[],
): Promise<Map<string, FlightEnhancement>> {
  const out = new Map<string, FlightEnhancement>();
  if (rows.length === 0) return out;
  const pilotIds = [...new Set(rows.map((r) => r.pilotId))];
  const aircraftIds = [...new Set(rows.map((r) => r.aircraftId).filter((id): id is string => !!id))];
  const [pilotRows, aircraftRows] = await db.batch([
    db
      .select({ id: pilots.id, username: pilots.username, pictureUrl: pilots.pictureUrl })
      .from(pilots)
      .where(sql`${pilots.id} IN ${pilotIds}`),
    db
      // Distinct column names: D1 returns batch rows as objects, where a second `id` or `name`
      // would overwrite the first and shift every column after it.
      .select({
        id: aircraft.id,
        nickname: aircraft.nickname,
        modelId: sql<string>`${aircraftModels.id}`.as("model_id"),
        modelName: sql<string>`${aircraftModels.name}`.as("model_name"),
        manufacturerId: sql<string>`${manufacturers.id}`.as("manufacturer_id"),
        manufacturerName: sql<string>`${manufacturers.name}`.as("manufacturer_name"),
        manufacturerUrl: sql<string | null>`${manufacturers.url}`.as("manufacturer_url"),
      })
      .from(aircraft)
      .innerJoin(aircraftModels, eq(aircraftModels.id, aircraft.modelId))
      .innerJoin(manufacturers, eq(manufacturers.id, aircraftModels.manufacturerId))
      .where(sql`${aircraft.id} IN ${aircraftIds.length > 0 ? aircraftIds : [""]}`),
  ]);
  const pilotById = new Map(pilotRows.map((p) => [p.id, p]));
  const aircraftById = new Map(aircraftRows.map((a) => [a.id, a]));
  for (const row of rows) {
    const pilot = pilotById.get(row.pilotId);
    const craft = row.aircraftId ? aircraftById.get(row.aircraftId) : undefined;
    out.set(row.id, {
      pilot: { id: row.pilotId, username: pilot?.username ?? "", picture_url: pilot?.pictureUrl ?? null },
      aircraft: craft
        ? {
            id: craft.id,
            nickname: craft.nickname,
            model: {
              id: craft.modelId,
              name: craft.modelName,
              manufacturer: {
                id: craft.manufacturerId,
                name: craft.manufacturerName,
                url: craft.manufacturerUrl,
              },
            },
          }
        : null,
    });
  }
  return out;
}

/** True when the aircraft belongs to the pilot (plans and flights may name only the pilot's own). */
export async function ownsAircraft(db: Db, pilotId: string, aircraftId: string): Promise<boolean> {
  const row = await db
    .select({ id: aircraft.id })
    .from(aircraft)
    .where(and(eq(aircraft.id, aircraftId), eq(aircraft.pilotId, pilotId)))
    .get();
  return row !== undefined;
}

/** Public flights of any account under way at `now`, soonest ending first: what the front page shows. */
export async function activePublicFlights(db: Db, now: number, limit: number) {
  return db
    .select({
      latitude: flights.latitude,
      longitude: flights.longitude,
      maxAltitude: flights.maxAltitude,
      startTime: flights.startTime,
      endTime: flights.endTime,
      city: flights.city,
      state: flights.state,
      country: flights.country,
    })
    .from(flights)
    .where(and(eq(flights.public, true), lte(flights.startTime, now), gte(flights.endTime, now)))
    .orderBy(flights.endTime)
    .limit(limit)
    .all();
}
