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
    UNION ALL SELECT max(f.created_at) FROM follows f WHERE f.followee_id = users.id)), 0);
