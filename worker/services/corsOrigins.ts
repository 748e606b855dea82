import { normalizeOrigins } from "../domain/corsOrigins";
import type { Db } from "../env";
import { problemError } from "../lib/errors";
import { forgetCorsOrigins } from "../middleware/cors";
import { replaceCorsOrigins } from "../store/corsOrigins";

/**
 * Replaces the account's browser origins with `origins` as browsers send them (each problem names
 * its entry: 400), and forgets this isolate's cached copy so that the change applies here at once.
 */
export async function replaceAccountOrigins(db: Db, accountId: string, origins: string[]): Promise<string[]> {
  const checked = normalizeOrigins(origins);
  if (!checked.ok) throw problemError(checked.problems);
  await replaceCorsOrigins(db, accountId, checked.value);
  forgetCorsOrigins(accountId);
  return checked.value;
}
