-- What the RID injection interface's virtual operator was notified of (worker/rid/operatorNotifications.ts):
-- written when a test is injected, read by GET /interuss/rid/v1/user_notifications, gone with the test.
CREATE TABLE `rid_operator_notifications` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`test_id` text NOT NULL,
	`observed_at` integer NOT NULL,
	`message` text NOT NULL
);
CREATE INDEX `rid_operator_notifications_observed` ON `rid_operator_notifications` (`observed_at`);
CREATE INDEX `rid_operator_notifications_test` ON `rid_operator_notifications` (`test_id`);
