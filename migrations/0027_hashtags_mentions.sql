-- Hashtags and mentions (issue 47). WITHOUT ROWID and the triggers by hand (drizzle cannot
-- declare them; server/src/kernel/db/schema.ts, hashtags and postHashtags).
CREATE TABLE `hashtags` (
	`tag` text PRIMARY KEY NOT NULL,
	`post_count` integer DEFAULT 0 NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `mentions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`post_id` integer NOT NULL,
	`comment_id` integer,
	`user_id` integer NOT NULL,
	`mentioned_id` integer,
	`name` text NOT NULL,
	`recipient_id` integer,
	`anonymous` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`post_id`) REFERENCES `posts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`comment_id`) REFERENCES `comments`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`mentioned_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `mentions_recipient_idx` ON `mentions` (`recipient_id`,`created_at`) WHERE "mentions"."recipient_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `mentions_post_idx` ON `mentions` (`post_id`,`comment_id`);--> statement-breakpoint
CREATE INDEX `mentions_comment_idx` ON `mentions` (`comment_id`) WHERE "mentions"."comment_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `mentions_user_idx` ON `mentions` (`user_id`);--> statement-breakpoint
CREATE TABLE `post_hashtags` (
	`tag` text NOT NULL,
	`post_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`tag`, `created_at`, `post_id`),
	FOREIGN KEY (`post_id`) REFERENCES `posts`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `post_hashtags_post_idx` ON `post_hashtags` (`post_id`);--> statement-breakpoint
-- hashtags.post_count follows post_hashtags whoever writes it: post_hashtags rows also go by
-- cascade from deletes no repository of hashtags sees (an account's removal).
CREATE TRIGGER `post_hashtags_counted` AFTER INSERT ON `post_hashtags` BEGIN
	INSERT INTO `hashtags` (`tag`, `post_count`) VALUES (NEW.`tag`, 1)
		ON CONFLICT (`tag`) DO UPDATE SET `post_count` = `post_count` + 1;
END;--> statement-breakpoint
CREATE TRIGGER `post_hashtags_uncounted` AFTER DELETE ON `post_hashtags` BEGIN
	UPDATE `hashtags` SET `post_count` = `post_count` - 1 WHERE `tag` = OLD.`tag`;
	DELETE FROM `hashtags` WHERE `tag` = OLD.`tag` AND `post_count` <= 0;
END;--> statement-breakpoint
ALTER TABLE `comments` ADD `mentions` text;--> statement-breakpoint
ALTER TABLE `posts` ADD `mentions` text;