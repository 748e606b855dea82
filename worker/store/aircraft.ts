import { and, asc, eq, or, type SQL, sql } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { aircraft, aircraftModels, manufacturers } from "../../schema";
import type { Db } from "../env";
import { newId } from "../lib/ids";
import { isoTime } from "../lib/time";
import { TtlCache } from "../lib/ttlCache";

const modelColumns = {
  modelId: aircraftModels.id,
  modelName: aircraftModels.name,
  massKg: aircraftModels.massKg,
  manufacturerId: manufacturers.id,
  manufacturerName: manufacturers.name,
  manufacturerUrl: manufacturers.url,
};

type ModelRow = {
  modelId: string;
  modelName: string;
  massKg: number | null;
  manufacturerId: string;
  manufacturerName: string;
  manufacturerUrl: string | null;
};

/** The one shape of a model, in the catalogue and inside a pilot's aircraft. */
function modelView(row: ModelRow) {
  return {
    id: row.modelId,
    name: row.modelName,
    // The same manufacturer as the manufacturer list gives (the Android SDK reads its `url` here too).
    manufacturer: { id: row.manufacturerId, name: row.manufacturerName, url: row.manufacturerUrl },
    metadata: { mass_kg: row.massKg },
  };
}

function aircraftView(row: ModelRow & { id: string; nickname: string; createdAt: number }) {
  return { id: row.id, nickname: row.nickname, model: modelView(row), created_at: isoTime(row.createdAt) };
}

/** Case-insensitive substring match, with LIKE's pattern characters in `text` taken literally. */
function nameContains(column: AnySQLiteColumn, text: string): SQL {
  const pattern = `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
  return sql`${column} LIKE ${pattern} ESCAPE '\\'`;
}

/** Alphabetical as people read it: "senseFly" among the S's. */
function byName(column: AnySQLiteColumn): SQL {
  return sql`${column} COLLATE NOCASE`;
}

/**
 * The manufacturers change only when an operator loads the aircraft catalogue: each isolate keeps
 * the whole list this long (as it keeps rulesets), so `GET /aircraft/v2/manufacturer` without a search
 * reads nothing. Shared between requests: callers never change it. An empty list is never kept.
 */
const CATALOGUE_RELOADED_WITHIN_MS = 60_000;
type Manufacturer = { id: string; name: string; url: string | null };
const allManufacturers = new TtlCache<Manufacturer[]>(1);

export async function listManufacturers(db: Db, q?: string, now = Date.now()): Promise<Manufacturer[]> {
  const cached = q ? undefined : allManufacturers.get("all", now);
  if (cached) return cached;
  const found = await db
    .select({ id: manufacturers.id, name: manufacturers.name, url: manufacturers.url })
    .from(manufacturers)
    .where(q ? nameContains(manufacturers.name, q) : undefined)
    .orderBy(byName(manufacturers.name));
  if (!q && found.length > 0) allManufacturers.set("all", found, CATALOGUE_RELOADED_WITHIN_MS, now);
  return found;
}

function modelsQuery(db: Db) {
  return db
    .select(modelColumns)
    .from(aircraftModels)
    .innerJoin(manufacturers, eq(manufacturers.id, aircraftModels.manufacturerId));
}

/** Models by manufacturer and name; `q` matches the model or the manufacturer name. */
export async function listModels(db: Db, filter: { manufacturerId?: string; q?: string }) {
  const conditions: (SQL | undefined)[] = [];
  if (filter.manufacturerId) conditions.push(eq(aircraftModels.manufacturerId, filter.manufacturerId));
  if (filter.q)
    conditions.push(
      or(nameContains(aircraftModels.name, filter.q), nameContains(manufacturers.name, filter.q)),
    );
  const rows = await modelsQuery(db)
    .where(and(...conditions))
    .orderBy(byName(manufacturers.name), byName(aircraftModels.name));
  return rows.map(modelView);
}

export async function findModel(db: Db, modelId: string) {
  const row = await modelsQuery(db).where(eq(aircraftModels.id, modelId)).get();
  return row && modelView(row);
}

function aircraftQuery(db: Db) {
  return db
    .select({ id: aircraft.id, nickname: aircraft.nickname, createdAt: aircraft.createdAt, ...modelColumns })
    .from(aircraft)
    .innerJoin(aircraftModels, eq(aircraftModels.id, aircraft.modelId))
    .innerJoin(manufacturers, eq(manufacturers.id, aircraftModels.manufacturerId));
}

export type AircraftView = ReturnType<typeof aircraftView>;

export async function listPilotAircraft(db: Db, pilotId: string): Promise<AircraftView[]> {
  const rows = await aircraftQuery(db)
    .where(eq(aircraft.pilotId, pilotId))
    .orderBy(asc(aircraft.createdAt), asc(aircraft.id));
  return rows.map(aircraftView);
}

export async function findPilotAircraft(db: Db, pilotId: string, aircraftId: string) {
  const row = await aircraftQuery(db)
    .where(and(eq(aircraft.pilotId, pilotId), eq(aircraft.id, aircraftId)))
    .get();
  return row && aircraftView(row);
}

export type ModelView = ReturnType<typeof modelView>;

export async function createAircraft(
  db: Db,
  pilotId: string,
  fields: { nickname: string; model: ModelView },
  now: number,
): Promise<AircraftView> {
  const id = newId("aircraft");
  await db
    .insert(aircraft)
    .values({ id, pilotId, nickname: fields.nickname, modelId: fields.model.id, createdAt: now });
  return { id, nickname: fields.nickname, model: fields.model, created_at: isoTime(now) };
}

/** False when the pilot has no such aircraft. */
export async function updateAircraft(
  db: Db,
  pilotId: string,
  aircraftId: string,
  fields: { nickname?: string; modelId?: string },
): Promise<boolean> {
  const row = await db
    .update(aircraft)
    .set({ nickname: fields.nickname, modelId: fields.modelId })
    .where(and(eq(aircraft.pilotId, pilotId), eq(aircraft.id, aircraftId)))
    .returning({ id: aircraft.id })
    .get();
  return row !== undefined;
}

/** False when the pilot has no such aircraft. Flights that named it keep its id and read it as null. */
export async function deleteAircraft(db: Db, pilotId: string, aircraftId: string): Promise<boolean> {
  const row = await db
    .delete(aircraft)
    .where(and(eq(aircraft.pilotId, pilotId), eq(aircraft.id, aircraftId)))
    .returning({ id: aircraft.id })
    .get();
  return row !== undefined;
}
