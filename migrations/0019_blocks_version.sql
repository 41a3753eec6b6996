-- users.blocks_version moves with every change to a block a user is part of, either way:
-- the read workers keep a viewer's block sets (who is on the other side of a block by name,
-- which anonymous posts they blocked the author of) until it moves
-- (server/src/domain/posts-repository.ts). By trigger, so no write path can forget it.
ALTER TABLE `users` ADD `blocks_version` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE TRIGGER `blocks_version_insert` AFTER INSERT ON `blocks` BEGIN
  UPDATE `users` SET `blocks_version` = `blocks_version` + 1 WHERE `id` IN (new.blocker_id, new.blocked_id);
END;
--> statement-breakpoint
CREATE TRIGGER `blocks_version_delete` AFTER DELETE ON `blocks` BEGIN
  UPDATE `users` SET `blocks_version` = `blocks_version` + 1 WHERE `id` IN (old.blocker_id, old.blocked_id);
END;
--> statement-breakpoint
CREATE TRIGGER `blocks_version_update` AFTER UPDATE ON `blocks` BEGIN
  UPDATE `users` SET `blocks_version` = `blocks_version` + 1
    WHERE `id` IN (old.blocker_id, old.blocked_id, new.blocker_id, new.blocked_id);
END;
