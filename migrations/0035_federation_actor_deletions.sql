CREATE TABLE `federation_actor_deletions` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`recipients` text NOT NULL,
	`created_at` integer NOT NULL
);
