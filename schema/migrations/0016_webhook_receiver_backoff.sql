-- A failing webhook receiver is paused for the whole account, not per flight (#27): after each failed
-- attempt from any of its flights' Durable Objects no other attempt is made before `paused_until`
-- (30 s doubling to 32 min with `failures`), and while it is failing only the Durable Object that
-- claims the pause sends its one probe (worker/store/webhooks.ts). A delivery resets both.
ALTER TABLE `conformance_webhooks` ADD `failures` integer DEFAULT 0 NOT NULL;
ALTER TABLE `conformance_webhooks` ADD `paused_until` integer DEFAULT 0 NOT NULL;
