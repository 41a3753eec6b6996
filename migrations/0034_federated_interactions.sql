CREATE TABLE `federation_interaction_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`post_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`comment_id` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `remote_comments` (
	`comment_id` integer PRIMARY KEY NOT NULL,
	`uri` text NOT NULL,
	FOREIGN KEY (`comment_id`) REFERENCES `comments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `remote_comments_uri_unique` ON `remote_comments` (`uri`);--> statement-breakpoint
ALTER TABLE `remote_posts` ADD `is_public` integer DEFAULT 1 NOT NULL;
--> statement-breakpoint
-- A like or comment of one of our people on a post of another server, made or taken back: its author's server is told (federation/interactions.ts).
CREATE TRIGGER `federation_like_added` AFTER INSERT ON `likes`
WHEN EXISTS (SELECT 1 FROM remote_posts WHERE post_id = new.post_id) AND (SELECT host FROM users WHERE id = new.user_id) IS NULL
BEGIN
  INSERT INTO federation_interaction_events (kind, post_id, user_id, comment_id, created_at)
    VALUES ('like', new.post_id, new.user_id, NULL, CAST(unixepoch('subsec') * 1000 AS INTEGER));
END;
--> statement-breakpoint
CREATE TRIGGER `federation_like_removed` AFTER DELETE ON `likes`
WHEN EXISTS (SELECT 1 FROM remote_posts WHERE post_id = old.post_id) AND (SELECT host FROM users WHERE id = old.user_id) IS NULL
BEGIN
  INSERT INTO federation_interaction_events (kind, post_id, user_id, comment_id, created_at)
    VALUES ('unlike', old.post_id, old.user_id, NULL, CAST(unixepoch('subsec') * 1000 AS INTEGER));
END;
--> statement-breakpoint
CREATE TRIGGER `federation_comment_added` AFTER INSERT ON `comments`
WHEN EXISTS (SELECT 1 FROM remote_posts WHERE post_id = new.post_id) AND (SELECT host FROM users WHERE id = new.user_id) IS NULL
BEGIN
  INSERT INTO federation_interaction_events (kind, post_id, user_id, comment_id, created_at)
    VALUES ('comment', new.post_id, new.user_id, new.id, CAST(unixepoch('subsec') * 1000 AS INTEGER));
END;
--> statement-breakpoint
CREATE TRIGGER `federation_comment_removed` AFTER DELETE ON `comments`
WHEN EXISTS (SELECT 1 FROM remote_posts WHERE post_id = old.post_id) AND (SELECT host FROM users WHERE id = old.user_id) IS NULL
BEGIN
  INSERT INTO federation_interaction_events (kind, post_id, user_id, comment_id, created_at)
    VALUES ('uncomment', old.post_id, old.user_id, old.id, CAST(unixepoch('subsec') * 1000 AS INTEGER));
END;
