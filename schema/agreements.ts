import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { pilots } from "./pilots";

/**
 * Agreements an authority asks pilots to accept (the SDKs' `/agreements/v2`), set by the operator
 * with `npm run agreements`. One row per agreement; a new version replaces the text, and pilots
 * who accepted an older one are asked again.
 */
export const agreements = sqliteTable(
  "agreements",
  {
    id: text("id").primaryKey(),
    /** The authority of briefings and evaluations (`faa-laanc`, `windsock`, an ED-269 zone's authority…). */
    authorityId: text("authority_id").notNull(),
    version: text("version").notNull(),
    /** `TERMS_AND_CONDITIONS` (the one type the Swift SDK names), or null. */
    type: text("type"),
    title: text("title").notNull(),
    /** The agreement itself, in Markdown. */
    text: text("text").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("agreements_authority").on(t.authorityId)],
);

/** A pilot's acceptance of one version of an agreement, with the date the pilot's app sent. */
export const agreementAcceptances = sqliteTable(
  "agreement_acceptances",
  {
    pilotId: text("pilot_id")
      .notNull()
      .references(() => pilots.id, { onDelete: "cascade" }),
    agreementId: text("agreement_id")
      .notNull()
      .references(() => agreements.id, { onDelete: "cascade" }),
    version: text("version").notNull(),
    /** When the pilot agreed, as the app said (ms). */
    agreedAt: integer("agreed_at").notNull(),
    /** When the service recorded it (ms). */
    recordedAt: integer("recorded_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.pilotId, t.agreementId, t.version] })],
);
