ALTER TABLE `posts` ADD `sensitive` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `posts` ADD `content_warning` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `posts` ADD `blur_key` text;--> statement-breakpoint
ALTER TABLE `users` ADD `show_sensitive` integer DEFAULT 0 NOT NULL;