-- The service's own first-party application: the deep-link page acts for it when a creation link
-- carries no client_id (spec 4.7's plain link). It has no API key; operators allow its callbacks with
-- `npm run callbacks -- add <url> --account app_windsock` (worker/domain/deeplink/firstParty.ts).
INSERT INTO `accounts` (`id`, `public_id`, `name`, `rate_limit_per_minute`, `created_at`)
VALUES ('account|windsock', 'app_windsock', 'Windsock', NULL, 0)
ON CONFLICT DO NOTHING;
