import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

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
