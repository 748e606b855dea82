import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { flights } from "./flights";

/**
 * Where live flights have reported from lately, for network Remote ID (worker/services/remoteId.ts):
 * one row per flight and 0.01° grid cell it sent a position in, with the latest such position and
 * its time. A view's query reads the rows of the view's cells and asks only those flights' Durable
 * Objects. Each flight's Durable Object writes its rows (worker/telemetry/livePositions.ts); rows go
 * with the flight (cascade), when it ends (trigger in the migration) and once too old to be asked.
 */
export const livePositions = sqliteTable(
  "live_positions",
  {
    flightId: text("flight_id")
      .notNull()
      .references(() => flights.id, { onDelete: "cascade" }),
    /** floor(latitude × 100) and floor(longitude × 100): the cell (worker/rid/liveIndex.ts). */
    cellY: integer("cell_y").notNull(),
    cellX: integer("cell_x").notNull(),
    latitude: real("latitude").notNull(),
    longitude: real("longitude").notNull(),
    /** The record timestamp (ms) of the latest position written for this cell. */
    reportedAt: integer("reported_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.flightId, t.cellY, t.cellX] }),
    // A view reads a few rows of cells (cell_y IN …, cell_x BETWEEN …), then the recent ones.
    index("live_positions_cell").on(t.cellY, t.cellX, t.reportedAt),
    // Rows too old to be asked are deleted by range.
    index("live_positions_reported").on(t.reportedAt),
  ],
);

/**
 * What the RID injection interface's virtual operator was notified of (slow updates, missing fields):
 * written when a test is injected, read by the interface's user_notifications, gone with the test.
 */
export const ridOperatorNotifications = sqliteTable(
  "rid_operator_notifications",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    testId: text("test_id").notNull(),
    observedAt: integer("observed_at").notNull(),
    message: text("message").notNull(),
  },
  (t) => [
    index("rid_operator_notifications_observed").on(t.observedAt),
    index("rid_operator_notifications_test").on(t.testId),
  ],
);
