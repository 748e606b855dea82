import { sha256Hex } from "../lib/hash";
import { newId, randomBase62 } from "../lib/ids";
import {
  findAccount,
  findAccountByKeyHash,
  findLiveKeyIds,
  insertApiKey,
  revokeApiKeyById,
  type SqlDb,
} from "../store/accounts";

/**
 * The one place API keys are minted, for the operator commands, `npm start` and the tests alike:
 * `wsk_` and 40 base62 characters (~238 random bits), stored only as a SHA-256 hash beside a
 * prefix that lets an operator recognise a key (keys:list prints it, keys:revoke takes it).
 */
export const API_KEY_PREFIX = "wsk_";
/** `wsk_` and 6 characters: 36 bits, enough to tell an account's keys apart, useless to guess one. */
export const API_KEY_PREFIX_LENGTH = 10;

export function newApiKey(): string {
  return `${API_KEY_PREFIX}${randomBase62(40)}`;
}

export function apiKeyPrefix(apiKey: string): string {
  return apiKey.slice(0, API_KEY_PREFIX_LENGTH);
}

export function hashApiKey(apiKey: string): Promise<string> {
  return sha256Hex(apiKey);
}

export interface CreatedKey {
  accountId: string;
  publicId: string;
  keyId: string;
  apiKey: string;
}

export interface KeyRequest {
  /** The key's label, and the new account's name when `accountId` and `accountName` are not given. */
  name: string;
  /** A new account's name: the application's, which pilots read on the deep-link page. */
  accountName?: string;
  /** An existing account (its id or public id); absent: a new account is created. */
  accountId?: string;
  rateLimitPerMinute?: number | null;
  now?: number;
}

/** Mints a key for a new account, or for an existing one; null when `accountId` names none. */
export async function createApiKey(db: SqlDb, request: KeyRequest): Promise<CreatedKey | null> {
  const now = request.now ?? Date.now();
  const apiKey = newApiKey();
  const keyId = newId("key");
  const existing = request.accountId ? await findAccount(db, request.accountId) : undefined;
  if (existing === null) return null;
  const account = existing ?? {
    id: newId("account"),
    publicId: `app_${randomBase62(12)}`,
    name: request.accountName ?? request.name,
  };
  const key = {
    id: keyId,
    accountId: account.id,
    name: request.name,
    keyHash: await hashApiKey(apiKey),
    prefix: apiKeyPrefix(apiKey),
    createdAt: now,
  };
  await insertApiKey(
    db,
    key,
    existing
      ? undefined
      : { ...account, rateLimitPerMinute: request.rateLimitPerMinute ?? null, createdAt: now },
  );
  return { accountId: account.id, publicId: account.publicId, keyId, apiKey };
}

/** True when the key is stored and not revoked. */
export async function isLiveApiKey(db: SqlDb, apiKey: string): Promise<boolean> {
  return (await findAccountByKeyHash(db, await hashApiKey(apiKey))) !== null;
}

export type RevokeOutcome = { revoked: string } | { none: true } | { ambiguous: number };

/** Revokes the live key with this id or printed prefix; a prefix shared by several revokes none. */
export async function revokeApiKeyByRef(
  db: SqlDb,
  idOrPrefix: string,
  now = Date.now(),
): Promise<RevokeOutcome> {
  const ids = await findLiveKeyIds(db, idOrPrefix);
  if (ids.length > 1) return { ambiguous: ids.length };
  const [id] = ids;
  if (!id) return { none: true };
  await revokeApiKeyById(db, id, now);
  return { revoked: id };
}
