ALTER TABLE `follows` ADD `accepted` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `follows_accepted_idx` ON `follows` (`follower_id`,`created_at`) WHERE accepted = 1;--> statement-breakpoint
ALTER TABLE `instance_settings` ADD `contact` text DEFAULT '' NOT NULL;