CREATE TABLE `airspace_datasets` (
	`name` text PRIMARY KEY NOT NULL,
	`format` text NOT NULL,
	`version` text NOT NULL,
	`records` integer NOT NULL,
	`loaded_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `airspace_feature_cells` (
	`level` integer NOT NULL,
	`x` integer NOT NULL,
	`y` integer NOT NULL,
	`feature_id` integer NOT NULL,
	PRIMARY KEY(`level`, `x`, `y`, `feature_id`)
);
--> statement-breakpoint
CREATE INDEX `airspace_feature_cells_feature` ON `airspace_feature_cells` (`feature_id`);--> statement-breakpoint
CREATE TABLE `airspace_features` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`external_id` text NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`geometry` text NOT NULL,
	`min_lat` real NOT NULL,
	`min_lng` real NOT NULL,
	`max_lat` real NOT NULL,
	`max_lng` real NOT NULL,
	`latitude` real NOT NULL,
	`longitude` real NOT NULL,
	`radius_m` real NOT NULL,
	`properties` text NOT NULL,
	`floor_m` real,
	`ceiling_m` real,
	`floor_code` text,
	`ceiling_code` text,
	`effective_start` integer,
	`effective_end` integer,
	`last_updated` integer,
	`city` text,
	`state` text,
	`country` text,
	`source` text NOT NULL,
	`dataset` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `airspace_features_external_id_unique` ON `airspace_features` (`external_id`);--> statement-breakpoint
CREATE INDEX `airspace_features_dataset` ON `airspace_features` (`dataset`);--> statement-breakpoint
CREATE TABLE `facility_map_cells` (
	`row` integer NOT NULL,
	`col` integer NOT NULL,
	`ceiling_ft` integer NOT NULL,
	`facility_map_id` integer NOT NULL,
	PRIMARY KEY(`row`, `col`)
);
--> statement-breakpoint
CREATE INDEX `facility_map_cells_map` ON `facility_map_cells` (`facility_map_id`);--> statement-breakpoint
CREATE TABLE `facility_maps` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`airport_id` text NOT NULL,
	`icao` text,
	`name` text NOT NULL,
	`laanc` integer NOT NULL,
	`last_edit` integer,
	`source` text NOT NULL,
	`dataset` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `facility_maps_airport_id_unique` ON `facility_maps` (`airport_id`);--> statement-breakpoint
CREATE TABLE `flight_features` (
	`name` text PRIMARY KEY NOT NULL,
	`description` text NOT NULL,
	`input_type` text NOT NULL,
	`measurement_type` text,
	`measurement_unit` text
);
--> statement-breakpoint
CREATE TABLE `jurisdiction_cells` (
	`level` integer NOT NULL,
	`x` integer NOT NULL,
	`y` integer NOT NULL,
	`jurisdiction_id` integer NOT NULL,
	PRIMARY KEY(`level`, `x`, `y`, `jurisdiction_id`)
);
--> statement-breakpoint
CREATE TABLE `jurisdictions` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`region` text NOT NULL,
	`country` text NOT NULL,
	`code` text,
	`parent_id` integer,
	`geometry` text NOT NULL,
	`min_lat` real NOT NULL,
	`min_lng` real NOT NULL,
	`max_lat` real NOT NULL,
	`max_lng` real NOT NULL,
	`source` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `rules` (
	`id` integer PRIMARY KEY NOT NULL,
	`ruleset_id` text NOT NULL,
	`short_text` text NOT NULL,
	`description` text NOT NULL,
	`display_order` integer,
	`flight_features` text NOT NULL,
	`condition` text,
	`triggers` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `rules_ruleset` ON `rules` (`ruleset_id`,`display_order`);--> statement-breakpoint
CREATE TABLE `rulesets` (
	`id` text PRIMARY KEY NOT NULL,
	`jurisdiction_id` integer NOT NULL,
	`name` text NOT NULL,
	`short_name` text NOT NULL,
	`description` text NOT NULL,
	`selection_type` text NOT NULL,
	`is_default` integer NOT NULL,
	`airspace_types` text NOT NULL,
	`display_order` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `rulesets_jurisdiction` ON `rulesets` (`jurisdiction_id`);