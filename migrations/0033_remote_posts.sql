CREATE TABLE `remote_posts` (
	`post_id` integer PRIMARY KEY NOT NULL,
	`uri` text NOT NULL,
	FOREIGN KEY (`post_id`) REFERENCES `posts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `remote_posts_uri_unique` ON `remote_posts` (`uri`);