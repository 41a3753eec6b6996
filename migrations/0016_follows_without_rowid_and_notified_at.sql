-- Follows become a WITHOUT ROWID table on their primary key (follower_id, followee_id), and
-- follows_followee_idx (followee_id, follower_id) goes: follows_followee_time_idx
-- (followee_id, created_at) carries follower_id in each entry and serves what it served (the
-- followers list and the data export list followers by time now). A follow and an unfollow
-- then write two b-trees instead of four: the index by time that the Notifications screen
-- reads had made follows the slowest of the notifications issue's write rows
-- (docs/performance.md, "Notifications and the write rows").
CREATE TABLE `__new_follows` (
	`follower_id` integer NOT NULL,
	`followee_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`follower_id`, `followee_id`),
	FOREIGN KEY (`follower_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`followee_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `__new_follows` (`follower_id`, `followee_id`, `created_at`)
  SELECT `follower_id`, `followee_id`, `created_at` FROM `follows` ORDER BY `follower_id`, `followee_id`;--> statement-breakpoint
DROP TABLE `follows`;--> statement-breakpoint
ALTER TABLE `__new_follows` RENAME TO `follows`;--> statement-breakpoint
CREATE INDEX `follows_followee_time_idx` ON `follows` (`followee_id`,`created_at`);--> statement-breakpoint
-- Dropping the old table dropped its triggers: the following feed's epoch (migration 0003).
CREATE TRIGGER `follows_feed_epoch_insert` AFTER INSERT ON `follows` BEGIN
  UPDATE `feed_epoch` SET `n` = `n` + 1 WHERE `id` = 1;
END;--> statement-breakpoint
CREATE TRIGGER `follows_feed_epoch_delete` AFTER DELETE ON `follows` BEGIN
  UPDATE `feed_epoch` SET `n` = `n` + 1 WHERE `id` = 1;
END;--> statement-breakpoint
-- users.notified_at: the created_at (ms) of the newest like, comment or follow anyone made
-- towards this person, moved in the UPDATE of their row that each of those writes already
-- makes (likes-, comments-, follows-repository.ts). Undoing one leaves it, so it is at or
-- after the newest notification there is. Marking notifications read reads this one row
-- instead of every post of the person for its newest like and comment, which it did inside
-- the write transaction (server/src/domain/notifications-repository.ts). Filled in from the
-- rows as notifications-repository.ts's NEWEST_NOTIFIED does.
ALTER TABLE `users` ADD `notified_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `users` SET `notified_at` = coalesce((SELECT max(t) FROM (
    SELECT (SELECT max(l.created_at) FROM likes l WHERE l.post_id = p.id AND l.recipient_id IS NOT NULL) AS t
      FROM posts p WHERE p.user_id = users.id AND p.is_profile_picture = 0
    UNION ALL SELECT (SELECT max(c.created_at) FROM comments c WHERE c.post_id = p.id AND c.recipient_id IS NOT NULL)
      FROM posts p WHERE p.user_id = users.id AND p.is_profile_picture = 0
    UNION ALL SELECT max(f.created_at) FROM follows f WHERE f.followee_id = users.id)), 0);--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `__deferred_by_0012` (`what` text PRIMARY KEY NOT NULL);--> statement-breakpoint
-- The bell, where migration 0012 deferred it (__deferred_by_0012; created empty here if absent:
-- a database that ran 0012 as first written keeps the bell its server kept up): everyone's
-- count set from the rows by 0012's rules (nothing by or towards someone blocked either way,
-- nothing by a suspended person, no hidden comment), a person's likes and comments found
-- through their posts as the Notifications screen finds them, their follows by
-- follows_followee_time_idx. users.block_count = 0 (no block either way, kept with every
-- block since 0009) skips the block probes, as server/src/kernel/notification-rules.ts does.
UPDATE `users` SET `unread_notifications` =
  (SELECT count(*) FROM `posts` p JOIN `likes` l ON l.`post_id` = p.`id` AND l.`created_at` > `users`.`notifications_seen_at`
    WHERE p.`user_id` = `users`.`id` AND p.`is_profile_picture` = 0 AND l.`recipient_id` IS NOT NULL AND l.`user_id` NOT IN (SELECT `id` FROM `users` WHERE `suspended_at` IS NOT NULL)
      AND (`users`.`block_count` = 0 OR NOT EXISTS (SELECT 1 FROM `blocks` b WHERE (b.`blocker_id` = `users`.`id` AND b.`blocked_id` = l.`user_id`)
        OR (b.`blocker_id` = l.`user_id` AND b.`blocked_id` = `users`.`id`))))
  + (SELECT count(*) FROM `posts` p JOIN `comments` c ON c.`post_id` = p.`id` AND c.`created_at` > `users`.`notifications_seen_at`
    WHERE p.`user_id` = `users`.`id` AND p.`is_profile_picture` = 0 AND c.`recipient_id` IS NOT NULL AND c.`hidden` = 0 AND c.`user_id` NOT IN (SELECT `id` FROM `users` WHERE `suspended_at` IS NOT NULL)
      AND (`users`.`block_count` = 0 OR NOT EXISTS (SELECT 1 FROM `blocks` b WHERE (b.`blocker_id` = `users`.`id` AND b.`blocked_id` = c.`user_id`)
        OR (b.`blocker_id` = c.`user_id` AND b.`blocked_id` = `users`.`id`))))
  + (SELECT count(*) FROM `follows` f
    WHERE f.`followee_id` = `users`.`id` AND f.`created_at` > `users`.`notifications_seen_at` AND f.`follower_id` NOT IN (SELECT `id` FROM `users` WHERE `suspended_at` IS NOT NULL)
      AND (`users`.`block_count` = 0 OR NOT EXISTS (SELECT 1 FROM `blocks` b WHERE (b.`blocker_id` = `users`.`id` AND b.`blocked_id` = f.`follower_id`)
        OR (b.`blocker_id` = f.`follower_id` AND b.`blocked_id` = `users`.`id`))))
  WHERE EXISTS (SELECT 1 FROM `__deferred_by_0012` WHERE `what` = 'users.unread_notifications');--> statement-breakpoint
DROP TABLE `__deferred_by_0012`;
