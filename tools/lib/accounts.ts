import { type CreatedKey, createApiKey, isLiveApiKey } from "../../worker/services/apiKeys";
import { toolDb } from "./db";
import type { Target } from "./target";

/**
 * `npm start`'s development key, through the one service that mints keys (worker/services/apiKeys.ts,
 * also behind keys:create and the tests' accounts).
 */
export async function createKey(
  target: Target,
  options: { name: string; accountName?: string },
): Promise<CreatedKey> {
  const created = await createApiKey(toolDb(target), options);
  if (!created) throw new Error("a new account is always created");
  return created;
}

/** True when the key is stored and not revoked. */
export function isLiveKey(target: Target, apiKey: string): Promise<boolean> {
  return isLiveApiKey(toolDb(target), apiKey);
}
