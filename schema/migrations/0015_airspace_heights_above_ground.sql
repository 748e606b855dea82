-- A record's floor and ceiling as heights above the ground where it lies (an MSL shelf less its
-- airport's elevation), so reads leave out shelves above or below a flight's heights. NULL: not known
-- (an MSL limit with no ground to measure from), and the record is kept.
ALTER TABLE `airspace_features` ADD `floor_agl_m` real;--> statement-breakpoint
ALTER TABLE `airspace_features` ADD `ceiling_agl_m` real;
