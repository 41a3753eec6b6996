-- The first comments shown under a post (the oldest few) change only when a comment
-- on it is added or removed, a comment is edited, or a commenter's name changes.
-- An added comment always moves posts.comment_count; the rest bump this one counter
-- in the writing transaction (by trigger, so no write path can forget it). Read
-- connections keep a post's first comments (posts-repository.ts) while its
-- comment_count and this counter are what they were when the comments were read.
CREATE TABLE `comments_epoch` (
	`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1),
	`n` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `comments_epoch` (`id`, `n`) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `comments_epoch_delete` AFTER DELETE ON `comments` BEGIN
  UPDATE `comments_epoch` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `comments_epoch_update` AFTER UPDATE ON `comments` BEGIN
  UPDATE `comments_epoch` SET `n` = `n` + 1 WHERE `id` = 1;
END;
--> statement-breakpoint
CREATE TRIGGER `users_comments_epoch_rename` AFTER UPDATE OF `username` ON `users`
WHEN old.`username` IS NOT new.`username` BEGIN
  UPDATE `comments_epoch` SET `n` = `n` + 1 WHERE `id` = 1;
END;
