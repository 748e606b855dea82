DROP INDEX `flights_pilot_start`;--> statement-breakpoint
CREATE INDEX `flights_account_pilot_start` ON `flights` (`account_id`,`pilot_id`,`start_time`,`id`);