import type { Db } from "../env";
import { badRequest, notFound } from "../lib/errors";
import { createAircraft, findModel, findPilotAircraft, updateAircraft } from "../store/aircraft";

/** A pilot's aircraft names a model of the catalogue: 400 naming `model_id` for one it lacks. */
async function catalogueModel(db: Db, modelId: string) {
  const model = await findModel(db, modelId);
  if (!model) throw badRequest("model_id", "no such model; see GET /aircraft/v2/model");
  return model;
}

/** Adds an aircraft of a catalogue model to the pilot's. */
export async function addAircraft(
  db: Db,
  pilotId: string,
  fields: { nickname: string; modelId: string },
  now: number,
) {
  const model = await catalogueModel(db, fields.modelId);
  return createAircraft(db, pilotId, { nickname: fields.nickname, model }, now);
}

/** Renames the pilot's aircraft or changes its model; the aircraft as stored after (404 when not the pilot's). */
export async function changeAircraft(
  db: Db,
  pilotId: string,
  aircraftId: string,
  fields: { nickname?: string; modelId?: string },
) {
  if (fields.modelId !== undefined) await catalogueModel(db, fields.modelId);
  if (fields.nickname !== undefined || fields.modelId !== undefined) {
    if (!(await updateAircraft(db, pilotId, aircraftId, fields))) throw notFound("Aircraft");
  }
  const found = await findPilotAircraft(db, pilotId, aircraftId);
  if (!found) throw notFound("Aircraft");
  return found;
}
