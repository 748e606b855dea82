import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * ASTM F3548-21 between USSs. A DSS keeps only references (where, when, whose, at which OVN); the
 * details live with the USSs and pass between them over `/uss/v1`.
 */

/**
 * This service's own operational intents: the reference the DSS last accepted and the details that
 * go with it, both as JSON in the standard's shapes, answered to other USSs as one.
 */
export const ownOperationalIntents = sqliteTable("own_operational_intents", {
  /** The intent's id in the DSS (derived from the flight plan's id). */
  id: text("id").primaryKey(),
  /** The flight_planning/v1 flight plan it stands for. */
  flightPlanId: text("flight_plan_id").notNull().unique(),
  /** OperationalIntentReference, as the DSS answered it to its manager (with the OVN). */
  reference: text("reference").notNull(),
  /** OperationalIntentDetails: volumes, off-nominal volumes, priority. */
  details: text("details").notNull(),
  /** The end of its last volume (ms): an hour on, as the DSS forgets it, the row is deleted. */
  endsAt: integer("ends_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * Other USSs' operational intents as they last told or answered this service, by their version in
 * the DSS: planning asks a manager again only when the DSS holds a newer version.
 */
export const peerOperationalIntents = sqliteTable(
  "peer_operational_intents",
  {
    id: text("id").primaryKey(),
    /** The client that manages it (the DSS's `manager`, the notifying token's `sub`). */
    manager: text("manager").notNull(),
    version: integer("version").notNull(),
    ovn: text("ovn").notNull(),
    /** OperationalIntent (reference and details) as received. */
    intent: text("intent").notNull(),
    /** The end of its last volume (ms): rows past it are deleted. */
    endsAt: integer("ends_at").notNull(),
    receivedAt: integer("received_at").notNull(),
  },
  (t) => [index("peer_operational_intents_ends").on(t.endsAt)],
);

/** Reports other USSs made to this one (`POST /uss/v1/reports`), kept for the operator. */
export const ussReports = sqliteTable("uss_reports", {
  id: text("id").primaryKey(),
  /** The reporting client (its token's `sub`). */
  reporter: text("reporter").notNull(),
  /** ErrorReport, as received, with its report_id. */
  report: text("report").notNull(),
  receivedAt: integer("received_at").notNull(),
});

/**
 * What strategic coordination told the planning user (flight_planning/v1 `user_notifications`):
 * conflicts this service's plans caused (SCD0090) or met (SCD0095).
 */
export const userNotifications = sqliteTable(
  "user_notifications",
  {
    id: text("id").primaryKey(),
    observedAt: integer("observed_at").notNull(),
    /** `Single` or `Multiple` (the interface's UserNotificationConflicts). */
    conflicts: text("conflicts").notNull(),
    message: text("message").notNull(),
  },
  (t) => [index("user_notifications_observed").on(t.observedAt)],
);
