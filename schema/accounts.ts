import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** A developer's application: owns API keys, pilots and allowed callback URLs. */
export const accounts = sqliteTable("accounts", {
  id: text("id").primaryKey(),
  publicId: text("public_id").notNull().unique(),
  name: text("name").notNull(),
  rateLimitPerMinute: integer("rate_limit_per_minute"),
  createdAt: integer("created_at").notNull(),
});

/** API keys are stored only as SHA-256 hashes; `prefix` lets an operator recognise one. */
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    name: text("name").notNull(),
    keyHash: text("key_hash").notNull().unique(),
    prefix: text("prefix").notNull(),
    createdAt: integer("created_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("api_keys_account").on(t.accountId)],
);

/**
 * Origins whose browser pages may call the API with this account's keys (CORS). An account without
 * rows is held to the service's CORS_ALLOWED_ORIGINS; one with rows, to them alone. Looked up by
 * origin to answer a preflight, which carries no key.
 */
export const corsOrigins = sqliteTable(
  "cors_origins",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    origin: text("origin").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.origin] }), index("cors_origins_origin").on(t.origin)],
);
