CREATE TABLE `cors_origins` (
	`account_id` text NOT NULL,
	`origin` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `origin`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `cors_origins_origin` ON `cors_origins` (`origin`);