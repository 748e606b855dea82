-- A feed's staged features carry their floor and ceiling as heights above the ground too, so the
-- swap writes every column a dataset's load writes (migration 0015).
ALTER TABLE `airspace_feed_staged_features` ADD `floor_agl_m` real;--> statement-breakpoint
ALTER TABLE `airspace_feed_staged_features` ADD `ceiling_agl_m` real;
