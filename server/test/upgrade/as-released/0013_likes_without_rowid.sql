-- Likes become a WITHOUT ROWID table clustered on its primary key (post_id, user_id):
-- a like then writes its row into the primary key's b-tree instead of into a rowid table
-- and a separate primary-key index, one b-tree page less per like and per unlike. That is
-- about what the recipient index of migration 0012 added to every like (docs/performance.md,
-- "Notifications and the write rows"). Nothing read likes by rowid but the data export, which
-- paged a person's likes by it to keep the order they were given: likes_user_idx now holds
-- that order itself, (user_id, created_at) (server/src/domain/export-repository.ts).
CREATE TABLE `__new_likes` (
	`post_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	`recipient_id` integer,
	PRIMARY KEY(`post_id`, `user_id`),
	FOREIGN KEY (`post_id`) REFERENCES `posts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `__new_likes` (`post_id`, `user_id`, `created_at`, `recipient_id`)
  SELECT `post_id`, `user_id`, `created_at`, `recipient_id` FROM `likes` ORDER BY `post_id`, `user_id`;--> statement-breakpoint
DROP TABLE `likes`;--> statement-breakpoint
ALTER TABLE `__new_likes` RENAME TO `likes`;--> statement-breakpoint
CREATE INDEX `likes_user_idx` ON `likes` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `likes_recipient_idx` ON `likes` (`recipient_id`,`created_at`) WHERE "likes"."recipient_id" IS NOT NULL;
