ALTER TABLE `pilots` ADD `flight_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Pilots who flew before the counter existed start from what they have.
UPDATE `pilots` SET `flight_count` = (SELECT count(*) FROM `flights` WHERE `flights`.`pilot_id` = `pilots`.`id`);
