CREATE TABLE `live_positions` (
	`flight_id` text NOT NULL,
	`cell_y` integer NOT NULL,
	`cell_x` integer NOT NULL,
	`latitude` real NOT NULL,
	`longitude` real NOT NULL,
	`reported_at` integer NOT NULL,
	PRIMARY KEY(`flight_id`, `cell_y`, `cell_x`),
	FOREIGN KEY (`flight_id`) REFERENCES `flights`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `live_positions_cell` ON `live_positions` (`cell_y`,`cell_x`,`reported_at`);--> statement-breakpoint
CREATE INDEX `live_positions_reported` ON `live_positions` (`reported_at`);--> statement-breakpoint
-- A flight that ends (its end_time moved earlier, worker/store/flights.ts endFlight) leaves the live
-- index with the same update, whichever route or service ended it. drizzle-kit does not model triggers.
CREATE TRIGGER `live_positions_flight_end` AFTER UPDATE OF `end_time` ON `flights`
WHEN NEW.`end_time` < OLD.`end_time`
BEGIN
  DELETE FROM `live_positions` WHERE `flight_id` = NEW.`id`;
END;
