import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { pilots } from "./pilots";

export const manufacturers = sqliteTable("manufacturers", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  url: text("url"),
});

export const aircraftModels = sqliteTable(
  "aircraft_models",
  {
    id: text("id").primaryKey(),
    manufacturerId: text("manufacturer_id")
      .notNull()
      .references(() => manufacturers.id),
    name: text("name").notNull(),
    /** Take-off mass in kilograms, as the maker publishes it. */
    massKg: real("mass_kg"),
  },
  (t) => [index("aircraft_models_manufacturer").on(t.manufacturerId)],
);

export const aircraft = sqliteTable(
  "aircraft",
  {
    id: text("id").primaryKey(),
    pilotId: text("pilot_id")
      .notNull()
      .references(() => pilots.id),
    nickname: text("nickname").notNull(),
    modelId: text("model_id")
      .notNull()
      .references(() => aircraftModels.id),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("aircraft_pilot").on(t.pilotId)],
);
