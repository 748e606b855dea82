import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

/** URL prefixes an account allows as deep-link callbacks; any other callback is refused (no open redirect). */
export const callbackPrefixes = sqliteTable(
  "callback_prefixes",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    /** Normalized: scheme and host as the URL parser writes them, then the path. */
    url: text("url").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.url] })],
);
