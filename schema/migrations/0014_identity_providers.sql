CREATE TABLE `identity_providers` (
	`account_id` text PRIMARY KEY NOT NULL,
	`issuer` text NOT NULL,
	`discovery_url` text,
	`jwks_url` text NOT NULL,
	`token_endpoint` text,
	`authorization_endpoint` text,
	`audience` text NOT NULL,
	`user_claim` text NOT NULL DEFAULT 'sub',
	`client_id` text,
	`client_secret` text,
	`allow_loopback` integer NOT NULL DEFAULT 0,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `pilot_link_grants` (
	`grant_hash` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`pilot_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `sign_in_states` (
	`state` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`nonce` text NOT NULL,
	`code_verifier` text NOT NULL,
	`link_query` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
