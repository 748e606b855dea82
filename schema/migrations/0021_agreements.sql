-- Issue 35: agreements an authority asks pilots to accept (the Swift SDK's /agreements/v2) and the
-- pilots' acceptances, one per version.
CREATE TABLE `agreements` (
	`id` text PRIMARY KEY NOT NULL,
	`authority_id` text NOT NULL,
	`version` text NOT NULL,
	`type` text,
	`title` text NOT NULL,
	`text` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `agreements_authority` ON `agreements` (`authority_id`);
--> statement-breakpoint
CREATE TABLE `agreement_acceptances` (
	`pilot_id` text NOT NULL,
	`agreement_id` text NOT NULL,
	`version` text NOT NULL,
	`agreed_at` integer NOT NULL,
	`recorded_at` integer NOT NULL,
	PRIMARY KEY(`pilot_id`, `agreement_id`, `version`),
	FOREIGN KEY (`pilot_id`) REFERENCES `pilots`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`agreement_id`) REFERENCES `agreements`(`id`) ON UPDATE no action ON DELETE cascade
);
