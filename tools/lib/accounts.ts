import { sha256Hex } from "../../worker/lib/hash";
import { newId, randomBase62 } from "../../worker/lib/ids";
import type { Target } from "./target";

export interface CreatedKey {
  accountId: string;
  publicId: string;
  keyId: string;
  apiKey: string;
}

/** Mints an API key; creates the account unless `accountId` names an existing one. */
export async function createKey(
  target: Target,
  options: { name: string; accountId?: string; rateLimitPerMinute?: number | null },
): Promise<CreatedKey> {
  const now = Date.now();
  const apiKey = `wsk_${randomBase62(40)}`;
  const keyId = newId("key");
  let accountId = options.accountId;
  let publicId: string;
  const statements = [];
  if (accountId) {
    const [row] = await target.query<{ public_id: string }>("SELECT public_id FROM accounts WHERE id = ?", [
      accountId,
    ]);
    if (!row) throw new Error(`no account ${accountId}; list accounts with keys:list`);
    publicId = row.public_id;
  } else {
    accountId = newId("account");
    publicId = `app_${randomBase62(12)}`;
    statements.push({
      sql: "INSERT INTO accounts (id, public_id, name, rate_limit_per_minute, created_at) VALUES (?, ?, ?, ?, ?)",
      params: [accountId, publicId, options.name, options.rateLimitPerMinute ?? null, now],
    });
  }
  statements.push({
    sql: "INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    params: [keyId, accountId, options.name, await sha256Hex(apiKey), apiKey.slice(0, 10), now],
  });
  await target.execute(statements);
  return { accountId, publicId, keyId, apiKey };
}

export interface KeyListing {
  key_id: string;
  prefix: string;
  name: string;
  account_id: string;
  account_name: string;
  created_at: number;
  revoked_at: number | null;
}

export function listKeys(target: Target): Promise<KeyListing[]> {
  return target.query<KeyListing>(
    `SELECT k.id AS key_id, k.prefix, k.name, k.account_id, a.name AS account_name, k.created_at, k.revoked_at
     FROM api_keys k JOIN accounts a ON a.id = k.account_id ORDER BY k.created_at`,
  );
}

/** Revokes by key id or by the printed prefix; returns how many keys it revoked. */
export async function revokeKey(target: Target, idOrPrefix: string): Promise<number> {
  const matches = await target.query<{ id: string }>(
    "SELECT id FROM api_keys WHERE (id = ? OR prefix = ?) AND revoked_at IS NULL",
    [idOrPrefix, idOrPrefix],
  );
  if (matches.length > 1) throw new Error(`${idOrPrefix} matches ${matches.length} keys; pass the key id`);
  if (matches.length === 0) return 0;
  await target.execute([
    { sql: "UPDATE api_keys SET revoked_at = ? WHERE id = ?", params: [Date.now(), matches[0]!.id] },
  ]);
  return 1;
}

/** True when the key is stored and not revoked. */
export async function isLiveKey(target: Target, apiKey: string): Promise<boolean> {
  const rows = await target.query("SELECT id FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL", [
    await sha256Hex(apiKey),
  ]);
  return rows.length > 0;
}
