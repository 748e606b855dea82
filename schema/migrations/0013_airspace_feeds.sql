-- Where each loaded dataset came from, and until when its cycle holds (null: no cycle).
ALTER TABLE `airspace_datasets` ADD `origin` text;--> statement-breakpoint
ALTER TABLE `airspace_datasets` ADD `valid_until` integer;--> statement-breakpoint
-- Each FAA feed's sync: its last good version, its last error, and the run under way (if any).
CREATE TABLE `airspace_feed_state` (
	`name` text PRIMARY KEY NOT NULL,
	`origin` text NOT NULL,
	`version` text,
	`last_attempt_at` integer,
	`last_success_at` integer,
	`last_error` text,
	`last_error_at` integer,
	`skipped` text DEFAULT '[]' NOT NULL,
	`run_version` text,
	`run_started_at` integer,
	`run_cursor` integer,
	`run_skipped` text
);
--> statement-breakpoint
-- A run's records wait here until the whole new version is in, then one batch swaps them in.
CREATE TABLE `airspace_feed_staged_features` (
	`feed` text NOT NULL,
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
	PRIMARY KEY(`feed`, `external_id`)
);
--> statement-breakpoint
CREATE TABLE `airspace_feed_staged_cells` (
	`feed` text NOT NULL,
	`external_id` text NOT NULL,
	`level` integer NOT NULL,
	`x` integer NOT NULL,
	`y` integer NOT NULL,
	PRIMARY KEY(`feed`, `external_id`, `level`, `x`, `y`)
);
--> statement-breakpoint
CREATE TABLE `airspace_feed_staged_maps` (
	`feed` text NOT NULL,
	`airport_id` text NOT NULL,
	`icao` text,
	`name` text NOT NULL,
	`laanc` integer NOT NULL,
	`last_edit` integer,
	`source` text NOT NULL,
	PRIMARY KEY(`feed`, `airport_id`)
);
--> statement-breakpoint
CREATE TABLE `airspace_feed_staged_map_cells` (
	`feed` text NOT NULL,
	`airport_id` text NOT NULL,
	`row` integer NOT NULL,
	`col` integer NOT NULL,
	`ceiling_ft` integer NOT NULL,
	PRIMARY KEY(`feed`, `airport_id`, `row`, `col`)
);
