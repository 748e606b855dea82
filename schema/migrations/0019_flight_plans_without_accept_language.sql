-- A plan kept the request's Accept-Language header (or "en-US" when none was sent) and showed it in
-- its flight_features, which the C++ and Android SDKs then sent back as a flight feature on PATCH.
-- Request headers are no part of a plan: the column goes, and so do the echoes already stored.
ALTER TABLE `flight_plans` DROP COLUMN `accept_language`;--> statement-breakpoint
UPDATE `flight_plans` SET `flight_features` = json_remove(`flight_features`, '$."accept-language"')
WHERE json_type(`flight_features`, '$."accept-language"') IS NOT NULL;
