CREATE TABLE `remote_media` (
	`media_key` text PRIMARY KEY NOT NULL,
	`post_id` integer NOT NULL,
	`url` text NOT NULL,
	`bytes` integer NOT NULL,
	`stored_at` integer,
	FOREIGN KEY (`post_id`) REFERENCES `posts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `remote_media_post` ON `remote_media` (`post_id`);--> statement-breakpoint
CREATE INDEX `remote_media_stored` ON `remote_media` (`stored_at`);--> statement-breakpoint
ALTER TABLE `instance_settings` ADD `remote_media_cap_bytes` integer DEFAULT 5368709120 NOT NULL;--> statement-breakpoint
ALTER TABLE `instance_settings` ADD `remote_media_retention_days` integer DEFAULT 30 NOT NULL;