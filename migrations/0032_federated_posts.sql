CREATE TABLE `federated_posts` (
	`post_id` integer PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`delivered_at` integer NOT NULL,
	`deleted_at` integer
);
--> statement-breakpoint
CREATE TABLE `federation_post_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`post_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`kind` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `federation_follows_followee_idx` ON `federation_follows` (`followee_id`);--> statement-breakpoint
-- The federation worker's events (federation/post-activities.ts), in the write's own transaction.
-- A new named post of ours whose author has followers on other servers: a Create to send.
CREATE TRIGGER `federation_post_created` AFTER INSERT ON `posts`
WHEN new.is_anonymous = 0 AND new.is_profile_picture = 0
  AND (SELECT host FROM users WHERE id = new.user_id) IS NULL
  AND EXISTS (SELECT 1 FROM federation_follows ff JOIN users u ON u.id = ff.follower_id
    WHERE ff.followee_id = new.user_id AND u.host IS NOT NULL)
BEGIN
  INSERT INTO federation_post_events (post_id, user_id, kind, created_at)
    VALUES (new.id, new.user_id, 'create', CAST(unixepoch('subsec') * 1000 AS INTEGER));
END;
--> statement-breakpoint
-- A post other servers have, changed in what they show (or made anonymous, or hidden): an Update, or a Delete.
CREATE TRIGGER `federation_post_updated` AFTER UPDATE OF caption, alt_text, sensitive, content_warning, edited_at, is_anonymous, hidden ON `posts`
WHEN EXISTS (SELECT 1 FROM federated_posts WHERE post_id = new.id AND deleted_at IS NULL)
BEGIN
  INSERT INTO federation_post_events (post_id, user_id, kind, created_at)
    VALUES (new.id, new.user_id, 'update', CAST(unixepoch('subsec') * 1000 AS INTEGER));
END;
--> statement-breakpoint
CREATE TRIGGER `federation_post_photo_updated` AFTER UPDATE OF alt_text ON `post_photos`
WHEN EXISTS (SELECT 1 FROM federated_posts WHERE post_id = new.post_id AND deleted_at IS NULL)
BEGIN
  INSERT INTO federation_post_events (post_id, user_id, kind, created_at)
    SELECT new.post_id, user_id, 'update', CAST(unixepoch('subsec') * 1000 AS INTEGER) FROM federated_posts WHERE post_id = new.post_id;
END;
--> statement-breakpoint
-- A post other servers have, removed here by anyone: a Delete.
CREATE TRIGGER `federation_post_deleted` AFTER DELETE ON `posts`
WHEN EXISTS (SELECT 1 FROM federated_posts WHERE post_id = old.id AND deleted_at IS NULL)
BEGIN
  INSERT INTO federation_post_events (post_id, user_id, kind, created_at)
    VALUES (old.id, old.user_id, 'delete', CAST(unixepoch('subsec') * 1000 AS INTEGER));
END;
