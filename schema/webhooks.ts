import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

/**
 * An account's conformance webhook (one per account). The signing secret is kept as given: the
 * Durable Objects need it to sign each delivery, so it cannot be stored as a hash.
 */
export const conformanceWebhooks = sqliteTable("conformance_webhooks", {
  accountId: text("account_id")
    .primaryKey()
    .references(() => accounts.id),
  url: text("url").notNull(),
  secret: text("secret").notNull(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
  /** Consecutive failed attempts against the receiver, from any flight (worker/store/webhooks.ts). */
  failures: integer("failures").notNull().default(0),
  /** No attempt before this time (ms): a failing receiver's pause. */
  pausedUntil: integer("paused_until").notNull().default(0),
});
