-- WITHOUT ROWID by hand (drizzle cannot declare it): an album's photos live in the primary key's
-- b-tree, so a page's albums are one range read each (server/src/db/schema.ts, postPhotos).
CREATE TABLE `post_photos` (
	`post_id` integer NOT NULL,
	`position` integer NOT NULL,
	`media_key` text NOT NULL,
	`width` integer NOT NULL,
	`height` integer NOT NULL,
	`medium_width` integer DEFAULT 0 NOT NULL,
	`alt_text` text DEFAULT '' NOT NULL,
	PRIMARY KEY(`post_id`, `position`),
	FOREIGN KEY (`post_id`) REFERENCES `posts`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
ALTER TABLE `posts` ADD `photo_count` integer DEFAULT 1 NOT NULL;