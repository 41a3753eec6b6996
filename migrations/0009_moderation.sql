CREATE TABLE `blocks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`blocker_id` integer NOT NULL,
	`blocked_id` integer NOT NULL,
	`via_anonymous_post` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`blocker_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`blocked_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `blocks_pair_unique` ON `blocks` (`blocker_id`,`blocked_id`);--> statement-breakpoint
CREATE INDEX `blocks_blocked_idx` ON `blocks` (`blocked_id`,`blocker_id`);--> statement-breakpoint
CREATE TABLE `moderation_actions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`operator_id` integer,
	`operator_name` text NOT NULL,
	`action` text NOT NULL,
	`target` text NOT NULL,
	`target_user_id` integer,
	`excerpt` text DEFAULT '' NOT NULL,
	`reason` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`operator_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`target_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `moderation_actions_target_idx` ON `moderation_actions` (`target_user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `reports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`reporter_id` integer NOT NULL,
	`post_id` integer NOT NULL,
	`comment_id` integer,
	`reason` text NOT NULL,
	`note` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`resolved_at` integer,
	FOREIGN KEY (`reporter_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`post_id`) REFERENCES `posts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`comment_id`) REFERENCES `comments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reports_open_unique` ON `reports` (`reporter_id`,`post_id`,coalesce(`comment_id`, 0)) WHERE "reports"."resolved_at" IS NULL;--> statement-breakpoint
CREATE INDEX `reports_open_idx` ON `reports` (`resolved_at`,`created_at`);--> statement-breakpoint
CREATE INDEX `reports_comment_idx` ON `reports` (`comment_id`);--> statement-breakpoint
DROP INDEX `posts_feed_idx`;--> statement-breakpoint
DROP INDEX `posts_user_feed_idx`;--> statement-breakpoint
DROP INDEX `posts_public_feed_idx`;--> statement-breakpoint
ALTER TABLE `posts` ADD `hidden` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `posts_feed_idx` ON `posts` (`created_at`,`id`) WHERE "posts"."is_profile_picture" = 0 AND "posts"."hidden" = 0;--> statement-breakpoint
CREATE INDEX `posts_user_feed_idx` ON `posts` (`user_id`,`is_profile_picture`,`is_anonymous`,`hidden`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `posts_public_feed_idx` ON `posts` (`created_at`,`id`,`user_id`) WHERE "posts"."is_profile_picture" = 0 AND "posts"."is_anonymous" = 0 AND "posts"."hidden" = 0;--> statement-breakpoint
ALTER TABLE `comments` ADD `hidden` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `idp_accounts` ADD `is_first` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `suspended_at` integer;--> statement-breakpoint
ALTER TABLE `users` ADD `suspension_reason` text;--> statement-breakpoint
ALTER TABLE `users` ADD `block_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-written (drizzle-kit writes neither): hiding a post (its author suspended or the
-- suspension lifted) changes what a following feed lists, like the changes 0003 covers.
CREATE TRIGGER `posts_feed_epoch_hidden` AFTER UPDATE OF `hidden` ON `posts`
WHEN old.`hidden` IS NOT new.`hidden` BEGIN
  UPDATE `feed_epoch` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
-- A server that already has accounts: the oldest one is its first, so it has an operator.
UPDATE `idp_accounts` SET `is_first` = 1
WHERE `id` = (SELECT `id` FROM `idp_accounts` ORDER BY `created_at`, rowid LIMIT 1);
