CREATE TABLE `notification_groups` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`kind` text NOT NULL,
	`post_id` integer,
	`post_key` integer NOT NULL,
	`day` integer NOT NULL,
	`count` integer DEFAULT 0 NOT NULL,
	`latest_id` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`post_id`) REFERENCES `posts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notification_groups_key_unique` ON `notification_groups` (`user_id`,`kind`,`post_key`,`day`);--> statement-breakpoint
CREATE INDEX `notification_groups_page_idx` ON `notification_groups` (`user_id`,`latest_id`);--> statement-breakpoint
CREATE INDEX `notification_groups_post_idx` ON `notification_groups` (`post_id`) WHERE "notification_groups"."post_id" IS NOT NULL;--> statement-breakpoint
CREATE TABLE `notifications` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`group_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`actor_id` integer NOT NULL,
	`kind` text NOT NULL,
	`post_id` integer,
	`comment_id` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`group_id`) REFERENCES `notification_groups`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`actor_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `notifications_group_idx` ON `notifications` (`group_id`,`id`);--> statement-breakpoint
CREATE INDEX `notifications_actor_idx` ON `notifications` (`actor_id`,`user_id`,`kind`,`post_id`);--> statement-breakpoint
ALTER TABLE `users` ADD `unread_notifications` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `notifications_seen_id` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-written (drizzle-kit writes no triggers): a like, a comment or a follow of someone
-- else's makes its notification in the same transaction, and taking it back (unlike, a
-- deleted comment, unfollow, however it is deleted) takes the notification back. Groups
-- are per recipient, kind, post and UTC day.
CREATE TRIGGER `likes_notify` AFTER INSERT ON `likes` BEGIN
  INSERT INTO `notification_groups` (`user_id`, `kind`, `post_id`, `post_key`, `day`)
    SELECT p.`user_id`, 'like', p.`id`, p.`id`, NEW.`created_at` / 86400000 FROM `posts` p
    WHERE p.`id` = NEW.`post_id` AND p.`user_id` <> NEW.`user_id` AND p.`is_profile_picture` = 0
  ON CONFLICT DO NOTHING;
  INSERT INTO `notifications` (`group_id`, `user_id`, `actor_id`, `kind`, `post_id`, `created_at`)
    SELECT g.`id`, g.`user_id`, NEW.`user_id`, 'like', NEW.`post_id`, NEW.`created_at`
    FROM `posts` p JOIN `notification_groups` g
      ON g.`user_id` = p.`user_id` AND g.`kind` = 'like' AND g.`post_key` = p.`id` AND g.`day` = NEW.`created_at` / 86400000
    WHERE p.`id` = NEW.`post_id` AND p.`user_id` <> NEW.`user_id` AND p.`is_profile_picture` = 0;
END;
--> statement-breakpoint
CREATE TRIGGER `likes_unnotify` AFTER DELETE ON `likes` BEGIN
  DELETE FROM `notifications` WHERE `actor_id` = OLD.`user_id`
    AND `user_id` = (SELECT `user_id` FROM `posts` WHERE `id` = OLD.`post_id`)
    AND `kind` = 'like' AND `post_id` = OLD.`post_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `comments_notify` AFTER INSERT ON `comments` BEGIN
  INSERT INTO `notification_groups` (`user_id`, `kind`, `post_id`, `post_key`, `day`)
    SELECT p.`user_id`, 'comment', p.`id`, p.`id`, NEW.`created_at` / 86400000 FROM `posts` p
    WHERE p.`id` = NEW.`post_id` AND p.`user_id` <> NEW.`user_id` AND p.`is_profile_picture` = 0
  ON CONFLICT DO NOTHING;
  INSERT INTO `notifications` (`group_id`, `user_id`, `actor_id`, `kind`, `post_id`, `comment_id`, `created_at`)
    SELECT g.`id`, g.`user_id`, NEW.`user_id`, 'comment', NEW.`post_id`, NEW.`id`, NEW.`created_at`
    FROM `posts` p JOIN `notification_groups` g
      ON g.`user_id` = p.`user_id` AND g.`kind` = 'comment' AND g.`post_key` = p.`id` AND g.`day` = NEW.`created_at` / 86400000
    WHERE p.`id` = NEW.`post_id` AND p.`user_id` <> NEW.`user_id` AND p.`is_profile_picture` = 0;
END;
--> statement-breakpoint
CREATE TRIGGER `comments_unnotify` AFTER DELETE ON `comments` BEGIN
  DELETE FROM `notifications` WHERE `actor_id` = OLD.`user_id`
    AND `user_id` = (SELECT `user_id` FROM `posts` WHERE `id` = OLD.`post_id`)
    AND `kind` = 'comment' AND `post_id` = OLD.`post_id` AND `comment_id` = OLD.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `follows_notify` AFTER INSERT ON `follows` WHEN NEW.`follower_id` <> NEW.`followee_id` BEGIN
  INSERT INTO `notification_groups` (`user_id`, `kind`, `post_id`, `post_key`, `day`)
    VALUES (NEW.`followee_id`, 'follow', NULL, 0, NEW.`created_at` / 86400000)
  ON CONFLICT DO NOTHING;
  INSERT INTO `notifications` (`group_id`, `user_id`, `actor_id`, `kind`, `created_at`)
    SELECT g.`id`, g.`user_id`, NEW.`follower_id`, 'follow', NEW.`created_at` FROM `notification_groups` g
    WHERE g.`user_id` = NEW.`followee_id` AND g.`kind` = 'follow' AND g.`post_key` = 0 AND g.`day` = NEW.`created_at` / 86400000;
END;
--> statement-breakpoint
CREATE TRIGGER `follows_unnotify` AFTER DELETE ON `follows` BEGIN
  DELETE FROM `notifications` WHERE `actor_id` = OLD.`follower_id` AND `user_id` = OLD.`followee_id` AND `kind` = 'follow';
END;
--> statement-breakpoint
-- A group's count and newest member, and the recipient's unread count, follow its
-- notifications however they come and go (also through a post's or group's cascade).
CREATE TRIGGER `notifications_added` AFTER INSERT ON `notifications` BEGIN
  UPDATE `notification_groups` SET `count` = `count` + 1, `latest_id` = NEW.`id` WHERE `id` = NEW.`group_id`;
  UPDATE `users` SET `unread_notifications` = `unread_notifications` + 1 WHERE `id` = NEW.`user_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `notifications_removed` AFTER DELETE ON `notifications` BEGIN
  UPDATE `users` SET `unread_notifications` = `unread_notifications` - 1
    WHERE `id` = OLD.`user_id` AND OLD.`id` > `notifications_seen_id`;
  UPDATE `notification_groups` SET `count` = `count` - 1,
    `latest_id` = CASE WHEN `latest_id` = OLD.`id`
      THEN coalesce((SELECT max(`id`) FROM `notifications` WHERE `group_id` = OLD.`group_id`), 0) ELSE `latest_id` END
    WHERE `id` = OLD.`group_id`;
  DELETE FROM `notification_groups` WHERE `id` = OLD.`group_id` AND `count` <= 0;
END;
