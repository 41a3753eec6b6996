CREATE TABLE `server_mutes` (
	`user_id` integer NOT NULL,
	`host` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `host`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
