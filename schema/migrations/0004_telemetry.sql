CREATE TABLE `telemetry_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`flight_id` text NOT NULL,
	`sealed_key` text NOT NULL,
	`opened_at` integer NOT NULL,
	`closed_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `telemetry_sessions_open` ON `telemetry_sessions` (`flight_id`) WHERE closed_at IS NULL;