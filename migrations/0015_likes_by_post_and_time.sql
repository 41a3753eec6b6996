-- Likes are clustered by (post_id, created_at, user_id), and one like per person and post is
-- kept by a unique index on (user_id, post_id), instead of a primary key on (post_id, user_id)
-- with indexes by (user_id, created_at) and by recipient. A like and an unlike then write two
-- b-trees instead of three: the recipient index's entry, on a random leaf of an index as
-- large as the table, was what kept a like above the notifications issue's budget
-- (docs/performance.md, "Notifications and the write rows"). The Notifications screen finds
-- a person's likes through their posts and each post's likes by time, as it does comments
-- (server/src/domain/notifications-repository.ts); the data export lists a person's likes
-- by post (server/src/domain/export-repository.ts).
--
-- This is the one rewrite of the likes on the way from any earlier schema (0.1.0's rowid
-- table, 0012's, 0013's as first written): it reads only the columns every one of them has,
-- and fills recipient_id in the same copy where migration 0012 deferred it
-- (__deferred_by_0012; a database that ran 0012 as first written keeps its own). Empty here
-- when that table is absent.
CREATE TABLE IF NOT EXISTS `__deferred_by_0012` (`what` text PRIMARY KEY NOT NULL);--> statement-breakpoint
CREATE TABLE `__new_likes` (
	`post_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	`recipient_id` integer,
	PRIMARY KEY(`post_id`, `created_at`, `user_id`),
	FOREIGN KEY (`post_id`) REFERENCES `posts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;--> statement-breakpoint
-- The recipient as 0012 first derived it, and as the likes repository writes it: the post's
-- author, unless the like is their own or the post a profile picture.
INSERT INTO `__new_likes` (`post_id`, `user_id`, `created_at`, `recipient_id`)
  SELECT l.`post_id`, l.`user_id`, l.`created_at`,
    CASE WHEN EXISTS (SELECT 1 FROM `__deferred_by_0012` WHERE `what` = 'likes.recipient_id')
      THEN (SELECT p.`user_id` FROM `posts` p WHERE p.`id` = l.`post_id` AND p.`user_id` <> l.`user_id` AND p.`is_profile_picture` = 0)
      ELSE l.`recipient_id` END
  FROM `likes` l ORDER BY l.`post_id`, l.`created_at`, l.`user_id`;--> statement-breakpoint
DROP TABLE `likes`;--> statement-breakpoint
ALTER TABLE `__new_likes` RENAME TO `likes`;--> statement-breakpoint
CREATE UNIQUE INDEX `likes_user_post_idx` ON `likes` (`user_id`,`post_id`);--> statement-breakpoint
-- The bell, where 0012 deferred it: everyone's count set from the rows by 0012's rules (nothing
-- by or towards someone blocked either way, nothing by a suspended person, no hidden comment),
-- a person's likes and comments found through their posts as the Notifications screen finds them.
UPDATE `users` SET `unread_notifications` =
  (SELECT count(*) FROM `posts` p JOIN `likes` l ON l.`post_id` = p.`id` AND l.`created_at` > `users`.`notifications_seen_at`
    JOIN `users` a ON a.`id` = l.`user_id`
    WHERE p.`user_id` = `users`.`id` AND p.`is_profile_picture` = 0 AND l.`recipient_id` IS NOT NULL AND a.`suspended_at` IS NULL
      AND NOT EXISTS (SELECT 1 FROM `blocks` b WHERE (b.`blocker_id` = `users`.`id` AND b.`blocked_id` = l.`user_id`)
        OR (b.`blocker_id` = l.`user_id` AND b.`blocked_id` = `users`.`id`)))
  + (SELECT count(*) FROM `posts` p JOIN `comments` c ON c.`post_id` = p.`id` AND c.`created_at` > `users`.`notifications_seen_at`
    JOIN `users` a ON a.`id` = c.`user_id`
    WHERE p.`user_id` = `users`.`id` AND p.`is_profile_picture` = 0 AND c.`recipient_id` IS NOT NULL AND c.`hidden` = 0 AND a.`suspended_at` IS NULL
      AND NOT EXISTS (SELECT 1 FROM `blocks` b WHERE (b.`blocker_id` = `users`.`id` AND b.`blocked_id` = c.`user_id`)
        OR (b.`blocker_id` = c.`user_id` AND b.`blocked_id` = `users`.`id`)))
  + (SELECT count(*) FROM `follows` f JOIN `users` a ON a.`id` = f.`follower_id`
    WHERE f.`followee_id` = `users`.`id` AND f.`created_at` > `users`.`notifications_seen_at` AND a.`suspended_at` IS NULL
      AND NOT EXISTS (SELECT 1 FROM `blocks` b WHERE (b.`blocker_id` = `users`.`id` AND b.`blocked_id` = f.`follower_id`)
        OR (b.`blocker_id` = f.`follower_id` AND b.`blocked_id` = `users`.`id`)))
  WHERE EXISTS (SELECT 1 FROM `__deferred_by_0012` WHERE `what` = 'users.unread_notifications');--> statement-breakpoint
DROP TABLE `__deferred_by_0012`;
