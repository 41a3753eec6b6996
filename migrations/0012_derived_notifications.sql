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
UPDATE `comments` SET `recipient_id` = (SELECT p.`user_id` FROM `posts` p
  WHERE p.`id` = `comments`.`post_id` AND p.`user_id` <> `comments`.`user_id` AND p.`is_profile_picture` = 0);--> statement-breakpoint
-- likes.recipient_id is filled by migration 0015, in the one copy of the likes that gives them
-- their final shape, and everyone's bell is counted by 0016: as first written this migration
-- filled the column in place and built indexes by recipient (likes, comments) and by followee and time
-- (follows), and 0013 and 0015 rewrote the likes twice more, dropping all of those: 5M likes
-- written three times at the reference size, several minutes of an upgrade from 0.1.0
-- (docs/self-hosting.md, "Upgrade"). A database this version migrates has no server run on
-- it before 0016 (all pending migrations run in one transaction at start), so what it defers
-- is read by nothing in between. This table says what is deferred; 0015 and 0016 read it.
-- A database that ran this migration as first written has no such table: it keeps its
-- recipients and its bell, which its server has kept up since.
CREATE TABLE `__deferred_by_0012` (`what` text PRIMARY KEY NOT NULL);--> statement-breakpoint
INSERT INTO `__deferred_by_0012` (`what`) VALUES ('likes.recipient_id'), ('users.unread_notifications');--> statement-breakpoint
ALTER TABLE `likes` ADD `recipient_id` integer;--> statement-breakpoint
ALTER TABLE `posts` ADD `medium_width` integer DEFAULT 0 NOT NULL;