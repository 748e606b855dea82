import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { Geometry } from "../worker/domain/geojson";

/**
 * Spatial index: every indexed record is listed under the cells of one grid level that its bounding
 * box touches (at most 2×2 cells, see worker/domain/airspace/spatialGrid.ts). Plain B-tree tables, so
 * the index works the same in local and deployed D1 and survives `wrangler d1 export`.
 */
const cellColumns = {
  level: integer("level").notNull(),
  x: integer("x").notNull(),
  y: integer("y").notNull(),
};

const bboxColumns = {
  minLat: real("min_lat").notNull(),
  minLng: real("min_lng").notNull(),
  maxLat: real("max_lat").notNull(),
  maxLng: real("max_lng").notNull(),
};

/** A record's vertical limits, time, place and source: alike in airspace_features and its staging table. */
const limitsAndPlaceColumns = {
  floorM: real("floor_m"),
  ceilingM: real("ceiling_m"),
  floorCode: text("floor_code"),
  ceilingCode: text("ceiling_code"),
  /** The floor and ceiling as heights above the ground there (null: unknown, the record is kept). */
  floorAglM: real("floor_agl_m"),
  ceilingAglM: real("ceiling_agl_m"),
  /** Epoch ms; null is unbounded. Time-bound airspace (TFR, NOTAM) has one or both. */
  effectiveStart: integer("effective_start"),
  effectiveEnd: integer("effective_end"),
  lastUpdated: integer("last_updated"),
  city: text("city"),
  state: text("state"),
  country: text("country"),
  /** `synthetic` for generated records; otherwise the source that supplied it. */
  source: text("source").notNull(),
};

/**
 * Countries (`federal`), states, counties and cities with their boundaries. A parent holds whatever
 * its children hold, so lookups test the small children and climb `parent_id`.
 */
export const jurisdictions = sqliteTable(
  "jurisdictions",
  {
    id: integer("id").primaryKey(),
    name: text("name").notNull(),
    region: text("region").$type<"federal" | "state" | "county" | "city" | "local">().notNull(),
    /** ISO 3166-1 alpha-3 of the country the jurisdiction belongs to. */
    country: text("country").notNull(),
    /** The source's own code: FIPS for the USA, Natural Earth's for the UK. */
    code: text("code"),
    parentId: integer("parent_id"),
    geometry: text("geometry", { mode: "json" }).$type<Geometry>().notNull(),
    ...bboxColumns,
    source: text("source").notNull(),
  },
  (t) => [index("jurisdictions_parent").on(t.parentId)],
);

export const jurisdictionCells = sqliteTable(
  "jurisdiction_cells",
  { ...cellColumns, jurisdictionId: integer("jurisdiction_id").notNull() },
  (t) => [primaryKey({ columns: [t.level, t.x, t.y, t.jurisdictionId] })],
);

/** Spec 2.4 rulesets; the rules and the flight features they ask about hang off them. */
export const rulesets = sqliteTable(
  "rulesets",
  {
    id: text("id").primaryKey(),
    jurisdictionId: integer("jurisdiction_id").notNull(),
    name: text("name").notNull(),
    shortName: text("short_name").notNull(),
    description: text("description").notNull(),
    selectionType: text("selection_type").$type<"required" | "optional" | "pick1">().notNull(),
    isDefault: integer("is_default", { mode: "boolean" }).notNull(),
    airspaceTypes: text("airspace_types", { mode: "json" }).$type<string[]>().notNull(),
    displayOrder: integer("display_order").notNull(),
  },
  (t) => [index("rulesets_jurisdiction").on(t.jurisdictionId)],
);

export const flightFeatures = sqliteTable("flight_features", {
  name: text("name").primaryKey(),
  description: text("description").notNull(),
  inputType: text("input_type").$type<"float" | "bool">().notNull(),
  measurementType: text("measurement_type"),
  measurementUnit: text("measurement_unit"),
});

/** How a rule is checked; the shapes live in worker/domain/airspace/rules.ts. */
export const rules = sqliteTable(
  "rules",
  {
    id: integer("id").primaryKey(),
    rulesetId: text("ruleset_id").notNull(),
    shortText: text("short_text").notNull(),
    description: text("description").notNull(),
    displayOrder: integer("display_order"),
    flightFeatures: text("flight_features", { mode: "json" }).$type<string[]>().notNull(),
    /** A condition on one flight feature, or null for rules that only inform. */
    condition: text("condition", { mode: "json" }).$type<unknown>(),
    /** Airspace types (and property matches) that raise an advisory under this rule, with its color. */
    triggers: text("triggers", { mode: "json" }).$type<unknown[]>().notNull(),
  },
  (t) => [index("rules_ruleset").on(t.rulesetId, t.displayOrder)],
);

/** Everything an advisory can be about: airports, controlled airspace, TFRs, parks, schools… */
export const airspaceFeatures = sqliteTable(
  "airspace_features",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** The advisory id clients see: `<dataset>:<the source's own id>`. */
    externalId: text("external_id").notNull().unique(),
    type: text("type").notNull(),
    name: text("name").notNull(),
    geometry: text("geometry", { mode: "json" }).$type<Geometry>().notNull(),
    /** The box of where the feature reaches: its geometry's box grown by `radius_m`. */
    ...bboxColumns,
    /** A representative point: the airport, or the centre of the shape. */
    latitude: real("latitude").notNull(),
    longitude: real("longitude").notNull(),
    /** For points: how near an area must come to be affected (an airport's 5 miles). */
    radiusM: real("radius_m").notNull(),
    properties: text("properties", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    ...limitsAndPlaceColumns,
    dataset: text("dataset").notNull(),
  },
  (t) => [index("airspace_features_dataset").on(t.dataset)],
);

export const airspaceFeatureCells = sqliteTable(
  "airspace_feature_cells",
  { ...cellColumns, featureId: integer("feature_id").notNull() },
  (t) => [
    primaryKey({ columns: [t.level, t.x, t.y, t.featureId] }),
    index("airspace_feature_cells_feature").on(t.featureId),
  ],
);

/** One airport's UAS facility map: the cells below say how high LAANC authorizes automatically. */
export const facilityMaps = sqliteTable("facility_maps", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  /** The airport's FAA id (`APT1_FAAID`), or its ident where it has none. */
  airportId: text("airport_id").notNull().unique(),
  icao: text("icao"),
  name: text("name").notNull(),
  laanc: integer("laanc", { mode: "boolean" }).notNull(),
  lastEdit: integer("last_edit"),
  source: text("source").notNull(),
  dataset: text("dataset").notNull(),
});

/** Facility-map cells on the FAA's 30″ grid: row = floor(lat·120), col = floor(lng·120). */
export const facilityMapCells = sqliteTable(
  "facility_map_cells",
  {
    row: integer("row").notNull(),
    col: integer("col").notNull(),
    ceilingFt: integer("ceiling_ft").notNull(),
    facilityMapId: integer("facility_map_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.row, t.col] }), index("facility_map_cells_map").on(t.facilityMapId)],
);

/** What has been loaded: the seed's version, and each import, so reloading replaces instead of doubling. */
export const airspaceDatasets = sqliteTable("airspace_datasets", {
  name: text("name").primaryKey(),
  format: text("format").notNull(),
  version: text("version").notNull(),
  records: integer("records").notNull(),
  loadedAt: integer("loaded_at").notNull(),
  /** Where the data came from (a URL, a package, a file); null for loads before it was recorded. */
  origin: text("origin"),
  /** Epoch ms: when the data's cycle ends (a NASR cycle's next effective date); null when it has none. */
  validUntil: integer("valid_until"),
});

/** Each FAA feed's sync (worker/services/airspaceSync.ts): last good version, last error, the run under way. */
export const airspaceFeedState = sqliteTable("airspace_feed_state", {
  name: text("name").primaryKey(),
  origin: text("origin").notNull(),
  version: text("version"),
  lastAttemptAt: integer("last_attempt_at"),
  lastSuccessAt: integer("last_success_at"),
  lastError: text("last_error"),
  lastErrorAt: integer("last_error_at"),
  /** JSON `[{reason, count, examples}]`: the records the last good version left out. */
  skipped: text("skipped").notNull().default("[]"),
  runVersion: text("run_version"),
  runStartedAt: integer("run_started_at"),
  /** Where the run goes on: the next `resultOffset`, or the next TFR detail. */
  runCursor: integer("run_cursor"),
  runSkipped: text("run_skipped"),
});

/** A feed run's records, staged until the whole version is in (same columns as airspace_features). */
export const airspaceFeedStagedFeatures = sqliteTable(
  "airspace_feed_staged_features",
  {
    feed: text("feed").notNull(),
    externalId: text("external_id").notNull(),
    type: text("type").notNull(),
    name: text("name").notNull(),
    geometry: text("geometry").notNull(),
    ...bboxColumns,
    latitude: real("latitude").notNull(),
    longitude: real("longitude").notNull(),
    radiusM: real("radius_m").notNull(),
    properties: text("properties").notNull(),
    ...limitsAndPlaceColumns,
  },
  (t) => [primaryKey({ columns: [t.feed, t.externalId] })],
);

export const airspaceFeedStagedCells = sqliteTable(
  "airspace_feed_staged_cells",
  { feed: text("feed").notNull(), externalId: text("external_id").notNull(), ...cellColumns },
  (t) => [primaryKey({ columns: [t.feed, t.externalId, t.level, t.x, t.y] })],
);

export const airspaceFeedStagedMaps = sqliteTable(
  "airspace_feed_staged_maps",
  {
    feed: text("feed").notNull(),
    airportId: text("airport_id").notNull(),
    icao: text("icao"),
    name: text("name").notNull(),
    laanc: integer("laanc", { mode: "boolean" }).notNull(),
    lastEdit: integer("last_edit"),
    source: text("source").notNull(),
  },
  (t) => [primaryKey({ columns: [t.feed, t.airportId] })],
);

export const airspaceFeedStagedMapCells = sqliteTable(
  "airspace_feed_staged_map_cells",
  {
    feed: text("feed").notNull(),
    airportId: text("airport_id").notNull(),
    row: integer("row").notNull(),
    col: integer("col").notNull(),
    ceilingFt: integer("ceiling_ft").notNull(),
  },
  (t) => [primaryKey({ columns: [t.feed, t.airportId, t.row, t.col] })],
);
