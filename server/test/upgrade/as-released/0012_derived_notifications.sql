-- Notifications are no longer rows of their own: the Notifications screen reads the likes,
-- comments and follows themselves (server/src/domain/notifications-repository.ts), found by
-- recipient through one index each, and groups them when it reads. Migration 0010's two
-- tables and eight triggers cost a like, a comment or a follow five more b-tree writes.
-- Its triggers go first: they write to the tables dropped below.
DROP TRIGGER IF EXISTS `likes_notify`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `likes_unnotify`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `comments_notify`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `comments_unnotify`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `follows_notify`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `follows_unnotify`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `notifications_added`;--> statement-breakpoint
DROP TRIGGER IF EXISTS `notifications_removed`;--> statement-breakpoint
-- What a person has seen becomes a time: that of the newest notification they had seen
-- (ids grew with time, so the nearest id at or below theirs is that moment or just before).
ALTER TABLE `users` ADD `notifications_seen_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `users` SET `notifications_seen_at` = coalesce(
  (SELECT `created_at` FROM `notifications` WHERE `id` <= `users`.`notifications_seen_id` ORDER BY `id` DESC LIMIT 1), 0)
  WHERE `notifications_seen_id` > 0;--> statement-breakpoint
ALTER TABLE `users` DROP COLUMN `notifications_seen_id`;--> statement-breakpoint
DROP TABLE `notifications`;--> statement-breakpoint
DROP TABLE `notification_groups`;--> statement-breakpoint
ALTER TABLE `comments` ADD `recipient_id` integer;--> statement-breakpoint
ALTER TABLE `likes` ADD `recipient_id` integer;--> statement-breakpoint
UPDATE `likes` SET `recipient_id` = (SELECT p.`user_id` FROM `posts` p
  WHERE p.`id` = `likes`.`post_id` AND p.`user_id` <> `likes`.`user_id` AND p.`is_profile_picture` = 0);--> statement-breakpoint
UPDATE `comments` SET `recipient_id` = (SELECT p.`user_id` FROM `posts` p
  WHERE p.`id` = `comments`.`post_id` AND p.`user_id` <> `comments`.`user_id` AND p.`is_profile_picture` = 0);--> statement-breakpoint
CREATE INDEX `comments_recipient_idx` ON `comments` (`recipient_id`,`created_at`) WHERE "comments"."recipient_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `likes_recipient_idx` ON `likes` (`recipient_id`,`created_at`) WHERE "likes"."recipient_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `follows_followee_time_idx` ON `follows` (`followee_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `posts` ADD `medium_width` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- The bell's count (users.unread_notifications) is moved by the writes themselves, in
-- the UPDATE of the recipient's row they already make (server/src/domain/*-repository.ts);
-- here everyone's count is set from the rows, by the rules the screen reads by: nothing
-- by or towards someone blocked either way, nothing by a suspended person, no hidden comment.
UPDATE `users` SET `unread_notifications` =
  (SELECT count(*) FROM `likes` l JOIN `users` a ON a.`id` = l.`user_id`
    WHERE l.`recipient_id` = `users`.`id` AND l.`created_at` > `users`.`notifications_seen_at` AND a.`suspended_at` IS NULL
      AND NOT EXISTS (SELECT 1 FROM `blocks` b WHERE (b.`blocker_id` = `users`.`id` AND b.`blocked_id` = l.`user_id`)
        OR (b.`blocker_id` = l.`user_id` AND b.`blocked_id` = `users`.`id`)))
  + (SELECT count(*) FROM `comments` c JOIN `users` a ON a.`id` = c.`user_id`
    WHERE c.`recipient_id` = `users`.`id` AND c.`created_at` > `users`.`notifications_seen_at` AND c.`hidden` = 0 AND a.`suspended_at` IS NULL
      AND NOT EXISTS (SELECT 1 FROM `blocks` b WHERE (b.`blocker_id` = `users`.`id` AND b.`blocked_id` = c.`user_id`)
        OR (b.`blocker_id` = c.`user_id` AND b.`blocked_id` = `users`.`id`)))
  + (SELECT count(*) FROM `follows` f JOIN `users` a ON a.`id` = f.`follower_id`
    WHERE f.`followee_id` = `users`.`id` AND f.`created_at` > `users`.`notifications_seen_at` AND a.`suspended_at` IS NULL
      AND NOT EXISTS (SELECT 1 FROM `blocks` b WHERE (b.`blocker_id` = `users`.`id` AND b.`blocked_id` = f.`follower_id`)
        OR (b.`blocker_id` = f.`follower_id` AND b.`blocked_id` = `users`.`id`)));
