-- Issue 37: a page sign-in keeps a bounded row (its link by reference, shared by every sign-in of
-- the same link) and the hash of the cookie of the browser that started it; rows in progress last
-- 10 minutes and are deleted when used or by the Cron Trigger once expired (in-progress sign-ins
-- are dropped by this migration: a pilot opens the link again).
DROP TABLE `sign_in_states`;
--> statement-breakpoint
CREATE TABLE `sign_in_links` (
	`link_hash` text PRIMARY KEY NOT NULL,
	`link_query` text NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sign_in_links_expires_at` ON `sign_in_links` (`expires_at`);
--> statement-breakpoint
CREATE TABLE `sign_in_states` (
	`state` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`nonce` text NOT NULL,
	`code_verifier` text NOT NULL,
	`link_hash` text NOT NULL,
	`browser_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sign_in_states_expires_at` ON `sign_in_states` (`expires_at`);
--> statement-breakpoint
CREATE INDEX `pilot_link_grants_expires_at` ON `pilot_link_grants` (`expires_at`);
