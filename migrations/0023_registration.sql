CREATE TABLE `instance_settings` (
	`id` integer PRIMARY KEY NOT NULL,
	`registration_mode` text NOT NULL,
	`members_can_invite` integer DEFAULT 0 NOT NULL,
	`name` text DEFAULT 'Shower Beer' NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`rules` text DEFAULT '' NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `invites` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`code_hash` text NOT NULL,
	`created_by` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`max_uses` integer NOT NULL,
	`uses` integer DEFAULT 0 NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invites_code_hash_unique` ON `invites` (`code_hash`);--> statement-breakpoint
CREATE INDEX `invites_created_by_idx` ON `invites` (`created_by`,`created_at`);--> statement-breakpoint
ALTER TABLE `users` ADD `join_state` text;--> statement-breakpoint
ALTER TABLE `users` ADD `join_reason` text;--> statement-breakpoint
ALTER TABLE `users` ADD `invite_id` integer;