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
-- (__deferred_by_0012; a database that ran 0012 as first written keeps its own, and has that
-- table empty from here). The bell 0012 deferred is counted by 0016, after the follows'
-- rebuild gives it their index by followee and time.
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
  -- NOT INDEXED: read the old table in its own order and sort, rather than walk its primary
  -- key index and fetch each row at random (on 0.1.0's rowid table).
  FROM `likes` l NOT INDEXED ORDER BY l.`post_id`, l.`created_at`, l.`user_id`;--> statement-breakpoint
DROP TABLE `likes`;--> statement-breakpoint
ALTER TABLE `__new_likes` RENAME TO `likes`;--> statement-breakpoint
CREATE UNIQUE INDEX `likes_user_post_idx` ON `likes` (`user_id`,`post_id`);
