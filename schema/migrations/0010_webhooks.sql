-- Conformance webhooks (worker/routes/webhooks.ts): one URL and signing secret per account. Each
-- flight's Durable Object reads it when it emits conformance events and delivers them from its own
-- outbox (worker/telemetry/webhookOutbox.ts). The secret is kept as given: deliveries are signed with it.
CREATE TABLE `conformance_webhooks` (
  `account_id` text PRIMARY KEY NOT NULL,
  `url` text NOT NULL,
  `secret` text NOT NULL,
  `created_at` integer NOT NULL,
  `updated_at` integer NOT NULL,
  FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
