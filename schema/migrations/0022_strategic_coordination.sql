-- Issue 40: ASTM F3548-21 between USSs (schema/strategicCoordination.ts): this service's own
-- operational intents with their details, other USSs' intents as received, their reports, and
-- the conflicts told to the planning user.
CREATE TABLE `own_operational_intents` (
	`id` text PRIMARY KEY NOT NULL,
	`flight_plan_id` text NOT NULL,
	`reference` text NOT NULL,
	`details` text NOT NULL,
	`ends_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `own_operational_intents_flight_plan_id_unique` ON `own_operational_intents` (`flight_plan_id`);
--> statement-breakpoint
CREATE TABLE `peer_operational_intents` (
	`id` text PRIMARY KEY NOT NULL,
	`manager` text NOT NULL,
	`version` integer NOT NULL,
	`ovn` text NOT NULL,
	`intent` text NOT NULL,
	`ends_at` integer NOT NULL,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `peer_operational_intents_ends` ON `peer_operational_intents` (`ends_at`);
--> statement-breakpoint
CREATE TABLE `uss_reports` (
	`id` text PRIMARY KEY NOT NULL,
	`reporter` text NOT NULL,
	`report` text NOT NULL,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `user_notifications` (
	`id` text PRIMARY KEY NOT NULL,
	`observed_at` integer NOT NULL,
	`conflicts` text NOT NULL,
	`message` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `user_notifications_observed` ON `user_notifications` (`observed_at`);
