ALTER TABLE `invites` ADD `revoked_reason` text;--> statement-breakpoint
ALTER TABLE `invites` ADD `by_operator` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `invites` SET `revoked_reason` = 'by_hand' WHERE `revoked_at` IS NOT NULL;--> statement-breakpoint
UPDATE `invites` SET `by_operator` = 1 WHERE `created_by` IN (SELECT `user_id` FROM `operator_grants`);--> statement-breakpoint
UPDATE `invites` SET `revoked_at` = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), `revoked_reason` = 'maker_removed'
  WHERE `revoked_at` IS NULL AND `created_by` IN (SELECT `id` FROM `users` WHERE `deleted_at` IS NOT NULL);--> statement-breakpoint
UPDATE `invites` SET `revoked_at` = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER), `revoked_reason` = 'maker_suspended'
  WHERE `revoked_at` IS NULL AND `created_by` IN (SELECT `id` FROM `users` WHERE `suspended_at` IS NOT NULL AND `join_state` IS NULL);
