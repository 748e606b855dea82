import { MAX_USER_METADATA_CHARS } from "../domain/pilots";
import type { Db } from "../env";
import { badRequest, notFound } from "../lib/errors";
import { findPilot, type PilotChanges, type PilotRow, updatePilot } from "../store/pilots";

/**
 * A pilot's own profile changed (`PATCH /pilot/v2/{id}`): the pilot as stored afterwards. Without
 * changes (at most the ignored app_metadata was sent), the pilot as stored. 404 for an unknown
 * pilot, 400 naming `user_metadata` when the merged metadata would exceed its limit.
 */
export async function changePilotProfile(
  db: Db,
  accountId: string,
  pilotId: string,
  changes: PilotChanges | undefined,
): Promise<PilotRow> {
  if (changes === undefined) {
    const found = await findPilot(db, accountId, pilotId, { statistics: false, now: Date.now() });
    if (!found) throw notFound("Pilot");
    return found.pilot;
  }
  const outcome = await updatePilot(db, accountId, pilotId, changes, MAX_USER_METADATA_CHARS);
  if ("failure" in outcome) {
    if (outcome.failure === "not_found") throw notFound("Pilot");
    throw badRequest(
      "user_metadata",
      `merged, it would exceed ${MAX_USER_METADATA_CHARS} characters of JSON`,
    );
  }
  return outcome.updated;
}
