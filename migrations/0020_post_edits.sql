CREATE TABLE `post_versions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`post_id` integer NOT NULL,
	`caption` text NOT NULL,
	`alt_text` text NOT NULL,
	`written_at` integer NOT NULL,
	FOREIGN KEY (`post_id`) REFERENCES `posts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `post_versions_post_idx` ON `post_versions` (`post_id`,`id`);--> statement-breakpoint
ALTER TABLE `posts` ADD `edited_at` integer;