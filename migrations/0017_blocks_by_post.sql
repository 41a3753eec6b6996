DROP INDEX `blocks_pair_unique`;--> statement-breakpoint
ALTER TABLE `blocks` ADD `post_id` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `blocks_named_pair_unique` ON `blocks` (`blocker_id`,`blocked_id`) WHERE "blocks"."post_id" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `blocks_blocker_post_unique` ON `blocks` (`blocker_id`,`post_id`);