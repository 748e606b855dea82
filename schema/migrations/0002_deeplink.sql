CREATE TABLE `callback_prefixes` (
	`account_id` text NOT NULL,
	`url` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `url`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
