-- Likes are clustered by (post_id, created_at, user_id), and one like per person and post is
-- kept by a unique index on (user_id, post_id), instead of a primary key on (post_id, user_id)
-- with indexes by (user_id, created_at) and by recipient. A like and an unlike then write two
-- b-trees instead of three: the recipient index's entry, on a random leaf of an index as
-- large as the table, was what kept a like above the notifications issue's budget
-- (docs/performance.md, "Notifications and the write rows"). The Notifications screen finds
-- a person's likes through their posts and each post's likes by time, as it does comments
-- (server/src/domain/notifications-repository.ts); the data export lists a person's likes
-- by post (server/src/domain/export-repository.ts).
CREATE TABLE `__new_likes` (
	`post_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	`recipient_id` integer,
	PRIMARY KEY(`post_id`, `created_at`, `user_id`),
	FOREIGN KEY (`post_id`) REFERENCES `posts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `__new_likes` (`post_id`, `user_id`, `created_at`, `recipient_id`)
  SELECT `post_id`, `user_id`, `created_at`, `recipient_id` FROM `likes` ORDER BY `post_id`, `created_at`, `user_id`;--> statement-breakpoint
DROP TABLE `likes`;--> statement-breakpoint
ALTER TABLE `__new_likes` RENAME TO `likes`;--> statement-breakpoint
CREATE UNIQUE INDEX `likes_user_post_idx` ON `likes` (`user_id`,`post_id`);
