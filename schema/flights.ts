import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { Geometry, Polygon } from "../worker/domain/geojson";
import { accounts } from "./accounts";
import { pilots } from "./pilots";

/** Bounding box columns shared by every table that takes part in a spatial pre-filter. */
const bboxColumns = {
  minLat: real("min_lat").notNull(),
  minLng: real("min_lng").notNull(),
  maxLat: real("max_lat").notNull(),
  maxLng: real("max_lng").notNull(),
};

export const flightPlans = sqliteTable(
  "flight_plans",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    pilotId: text("pilot_id")
      .notNull()
      .references(() => pilots.id),
    aircraftId: text("aircraft_id"),
    takeoffLatitude: real("takeoff_latitude").notNull(),
    takeoffLongitude: real("takeoff_longitude").notNull(),
    startTime: integer("start_time").notNull(),
    endTime: integer("end_time").notNull(),
    maxAltitudeAgl: real("max_altitude_agl").notNull(),
    minAltitudeAgl: real("min_altitude_agl").notNull(),
    buffer: real("buffer").notNull(),
    /** The geometry as the client sent it. */
    geometry: text("geometry", { mode: "json" }).$type<Geometry>().notNull(),
    /** The flight area: the geometry, buffered when it is a LineString or Point. */
    area: text("area", { mode: "json" }).$type<Polygon>().notNull(),
    ...bboxColumns,
    flightDescription: text("flight_description").notNull(),
    rulesets: text("rulesets", { mode: "json" }).$type<string[]>().notNull(),
    flightFeatures: text("flight_features", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    flightId: text("flight_id"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("flight_plans_pilot").on(t.pilotId, t.createdAt)],
);

export const flights = sqliteTable(
  "flights",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    pilotId: text("pilot_id")
      .notNull()
      .references(() => pilots.id),
    flightPlanId: text("flight_plan_id").unique(),
    aircraftId: text("aircraft_id"),
    latitude: real("latitude").notNull(),
    longitude: real("longitude").notNull(),
    buffer: real("buffer").notNull(),
    geometry: text("geometry", { mode: "json" }).$type<Polygon>().notNull(),
    ...bboxColumns,
    maxAltitude: real("max_altitude").notNull(),
    startTime: integer("start_time").notNull(),
    endTime: integer("end_time").notNull(),
    createdAt: integer("created_at").notNull(),
    public: integer("public", { mode: "boolean" }).notNull(),
    notify: integer("notify", { mode: "boolean" }).notNull(),
    city: text("city"),
    state: text("state"),
    country: text("country"),
    /** Authorization objects (spec 2.6) decided on submit, as JSON. */
    authorizations: text("authorizations", { mode: "json" }).$type<unknown[]>().notNull(),
  },
  (t) => [
    index("flights_account_pilot_start").on(t.accountId, t.pilotId, t.startTime, t.id),
    index("flights_account_public_start").on(t.accountId, t.public, t.startTime, t.id),
  ],
);
