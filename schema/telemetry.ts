import { sql } from "drizzle-orm";
import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * A flight's telemetry sessions (start-comm to end-comm). Each holds its own AES-256 key, sealed at rest;
 * the records themselves live in the flight's Durable Object, not in D1.
 */
export const telemetrySessions = sqliteTable(
  "telemetry_sessions",
  {
    id: text("id").primaryKey(),
    flightId: text("flight_id").notNull(),
    /** base64 of IV ‖ AES-GCM ciphertext of the 32-byte key under TELEMETRY_MASTER_KEY (AAD: the id). */
    sealedKey: text("sealed_key").notNull(),
    openedAt: integer("opened_at").notNull(),
    closedAt: integer("closed_at"),
  },
  // At most one open session per flight; also the index that finds it.
  (t) => [uniqueIndex("telemetry_sessions_open").on(t.flightId).where(sql`closed_at IS NULL`)],
);
