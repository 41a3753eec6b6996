CREATE TABLE `follow_requests` (
	`requester_id` integer NOT NULL,
	`target_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`target_id`, `requester_id`),
	FOREIGN KEY (`requester_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`target_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `follow_requests_requester_idx` ON `follow_requests` (`requester_id`,`target_id`);--> statement-breakpoint
ALTER TABLE `users` ADD `is_private` integer DEFAULT 0 NOT NULL;