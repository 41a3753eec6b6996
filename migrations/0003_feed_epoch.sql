-- Which posts a following feed can list changes only when a listable post is added
-- or removed, a post's author, visibility or time changes, or a follow is added or
-- removed. Each of those bumps this one counter in the writing transaction (by
-- trigger, so no write path can forget it); cached first pages of the following
-- feed (posts-repository.ts) are served only while it has not moved.
CREATE TABLE `feed_epoch` (
	`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1),
	`n` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `feed_epoch` (`id`, `n`) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `posts_feed_epoch_insert` AFTER INSERT ON `posts`
WHEN new.is_profile_picture = 0 AND new.is_anonymous = 0 BEGIN
  UPDATE `feed_epoch` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `posts_feed_epoch_delete` AFTER DELETE ON `posts`
WHEN old.is_profile_picture = 0 AND old.is_anonymous = 0 BEGIN
  UPDATE `feed_epoch` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `posts_feed_epoch_update` AFTER UPDATE OF `user_id`, `is_profile_picture`, `is_anonymous`, `created_at` ON `posts` BEGIN
  UPDATE `feed_epoch` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `follows_feed_epoch_insert` AFTER INSERT ON `follows` BEGIN
  UPDATE `feed_epoch` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `follows_feed_epoch_delete` AFTER DELETE ON `follows` BEGIN
  UPDATE `feed_epoch` SET `n` = `n` + 1 WHERE `id` = 1;
END;
