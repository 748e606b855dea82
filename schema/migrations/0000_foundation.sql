CREATE TABLE `accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`public_id` text NOT NULL,
	`name` text NOT NULL,
	`rate_limit_per_minute` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_public_id_unique` ON `accounts` (`public_id`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_account` ON `api_keys` (`account_id`);--> statement-breakpoint
CREATE TABLE `aircraft` (
	`id` text PRIMARY KEY NOT NULL,
	`pilot_id` text NOT NULL,
	`nickname` text NOT NULL,
	`model_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`pilot_id`) REFERENCES `pilots`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`model_id`) REFERENCES `aircraft_models`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `aircraft_pilot` ON `aircraft` (`pilot_id`);--> statement-breakpoint
CREATE TABLE `aircraft_models` (
	`id` text PRIMARY KEY NOT NULL,
	`manufacturer_id` text NOT NULL,
	`name` text NOT NULL,
	`mass_kg` real,
	FOREIGN KEY (`manufacturer_id`) REFERENCES `manufacturers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `aircraft_models_manufacturer` ON `aircraft_models` (`manufacturer_id`);--> statement-breakpoint
CREATE TABLE `manufacturers` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`url` text
);
--> statement-breakpoint
CREATE TABLE `flight_plans` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`pilot_id` text NOT NULL,
	`aircraft_id` text,
	`takeoff_latitude` real NOT NULL,
	`takeoff_longitude` real NOT NULL,
	`start_time` integer NOT NULL,
	`end_time` integer NOT NULL,
	`max_altitude_agl` real NOT NULL,
	`min_altitude_agl` real NOT NULL,
	`buffer` real NOT NULL,
	`geometry` text NOT NULL,
	`area` text NOT NULL,
	`min_lat` real NOT NULL,
	`min_lng` real NOT NULL,
	`max_lat` real NOT NULL,
	`max_lng` real NOT NULL,
	`flight_description` text NOT NULL,
	`rulesets` text NOT NULL,
	`flight_features` text NOT NULL,
	`accept_language` text NOT NULL,
	`flight_id` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`pilot_id`) REFERENCES `pilots`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `flight_plans_pilot` ON `flight_plans` (`pilot_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `flights` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`pilot_id` text NOT NULL,
	`flight_plan_id` text,
	`aircraft_id` text,
	`latitude` real NOT NULL,
	`longitude` real NOT NULL,
	`buffer` real NOT NULL,
	`geometry` text NOT NULL,
	`min_lat` real NOT NULL,
	`min_lng` real NOT NULL,
	`max_lat` real NOT NULL,
	`max_lng` real NOT NULL,
	`max_altitude` real NOT NULL,
	`start_time` integer NOT NULL,
	`end_time` integer NOT NULL,
	`created_at` integer NOT NULL,
	`public` integer NOT NULL,
	`notify` integer NOT NULL,
	`city` text,
	`state` text,
	`country` text,
	`authorizations` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`pilot_id`) REFERENCES `pilots`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `flights_flight_plan_id_unique` ON `flights` (`flight_plan_id`);--> statement-breakpoint
CREATE INDEX `flights_pilot_start` ON `flights` (`pilot_id`,`start_time`,`id`);--> statement-breakpoint
CREATE INDEX `flights_account_public_start` ON `flights` (`account_id`,`public`,`start_time`,`id`);--> statement-breakpoint
CREATE TABLE `outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`pilot_id` text NOT NULL,
	`channel` text NOT NULL,
	`destination` text NOT NULL,
	`token` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `outbox_pilot` ON `outbox` (`pilot_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `pilots` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`user_id` text NOT NULL,
	`username` text NOT NULL,
	`email` text,
	`first_name` text,
	`last_name` text,
	`picture_url` text,
	`phone` text,
	`user_metadata` text NOT NULL,
	`app_metadata` text NOT NULL,
	`phone_verified` integer NOT NULL,
	`email_verified` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `pilots_account_user` ON `pilots` (`account_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `verification_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`pilot_id` text NOT NULL,
	`channel` text NOT NULL,
	`destination` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`consumed_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`pilot_id`) REFERENCES `pilots`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `verification_tokens_pilot` ON `verification_tokens` (`pilot_id`,`channel`,`created_at`);