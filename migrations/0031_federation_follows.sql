CREATE TABLE `federation_follows` (
	`follower_id` integer NOT NULL,
	`followee_id` integer NOT NULL,
	`activity_uri` text NOT NULL,
	PRIMARY KEY(`follower_id`, `followee_id`),
	FOREIGN KEY (`follower_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`followee_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `remote_actors` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`uri` text NOT NULL,
	`inbox` text NOT NULL,
	`shared_inbox` text,
	`url` text,
	`manually_approves_followers` integer DEFAULT 0 NOT NULL,
	`fetched_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `remote_actors_uri_unique` ON `remote_actors` (`uri`);--> statement-breakpoint
ALTER TABLE `users` ADD `host` text;