import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toolDb } from "../../tools/lib/db";
import {
  API_KEY_PREFIX_LENGTH,
  apiKeyPrefix,
  createApiKey,
  hashApiKey,
  isLiveApiKey,
  revokeApiKeyByRef,
} from "../../worker/services/apiKeys";
import { findAccountByKeyHash, listApiKeys } from "../../worker/store/accounts";
import { SqliteTarget } from "./sqliteTarget";

// The one service behind keys:create, npm start's development key and the worker tests' accounts,
// run through the operator tools' drizzle (the same proxy that drives wrangler d1 remotely).
let target: SqliteTarget;
let db: ReturnType<typeof toolDb>;

beforeEach(async () => {
  target = await SqliteTarget.open();
  db = toolDb(target);
});
afterEach(() => target.close());

describe("API keys through the shared service", () => {
  it("mints a key the worker's own lookup accepts, stored only as a hash and a 10-character prefix", async () => {
    const created = (await createApiKey(db, { name: "partner app", rateLimitPerMinute: 60 }))!;
    expect(created.apiKey).toMatch(/^wsk_[0-9A-Za-z]{40}$/);
    expect(API_KEY_PREFIX_LENGTH).toBe(10);
    const account = await findAccountByKeyHash(db, await hashApiKey(created.apiKey));
    expect(account).toEqual({
      id: created.accountId,
      publicId: created.publicId,
      name: "partner app",
      rateLimitPerMinute: 60,
      keyId: created.keyId,
    });
    const stored = await target.query<Record<string, unknown>>("SELECT * FROM api_keys");
    expect(stored).toHaveLength(1);
    expect(stored[0]!.prefix).toBe(apiKeyPrefix(created.apiKey));
    expect(JSON.stringify(stored)).not.toContain(created.apiKey);
  });

  it("adds a key to an existing account by id or public id, and refuses an unknown one", async () => {
    const first = (await createApiKey(db, { name: "app" }))!;
    const second = (await createApiKey(db, { name: "ci key", accountId: first.publicId }))!;
    expect(second.accountId).toBe(first.accountId);
    expect(await createApiKey(db, { name: "x", accountId: "account|nobody" })).toBeNull();
    // Key and account both have `id` and `name`: each column keeps its own value.
    const listed = await listApiKeys(db);
    expect(listed.map((k) => [k.keyId, k.name, k.accountId, k.accountName])).toEqual([
      [first.keyId, "app", first.accountId, "app"],
      [second.keyId, "ci key", first.accountId, "app"],
    ]);
  });

  it("revokes by id or printed prefix, never a prefix two keys share", async () => {
    const a = (await createApiKey(db, { name: "a" }))!;
    const b = (await createApiKey(db, { name: "b" }))!;
    await target.execute([
      { sql: "UPDATE api_keys SET prefix = 'wsk_shared' WHERE id IN (?, ?)", params: [a.keyId, b.keyId] },
    ]);
    expect(await revokeApiKeyByRef(db, "wsk_shared")).toEqual({ ambiguous: 2 });
    expect(await revokeApiKeyByRef(db, a.keyId)).toEqual({ revoked: a.keyId });
    expect(await isLiveApiKey(db, a.apiKey)).toBe(false);
    expect(await isLiveApiKey(db, b.apiKey)).toBe(true);
    expect(await revokeApiKeyByRef(db, "wsk_shared")).toEqual({ revoked: b.keyId });
    expect(await revokeApiKeyByRef(db, "wsk_shared")).toEqual({ none: true });
  });
});
