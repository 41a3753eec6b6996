-- Reports another server sends (a Flag; server/src/federation/flags.ts) have no reporter here,
-- only the server they came from: reporter_id becomes nullable, which SQLite allows only by
-- rebuilding the table. Every row keeps its id and values; the indexes are made again as 0009
-- made them, plus one open report per other server per item (a flood of Flags fills no page).
-- forwarded_to / forwarded_at: where an operator forwarded the item's reports (a Flag of ours).
-- Nothing references reports and it has no triggers, so dropping the old table drops nothing else.
CREATE TABLE `__new_reports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`reporter_id` integer,
	`reporter_host` text,
	`post_id` integer NOT NULL,
	`comment_id` integer,
	`reason` text NOT NULL,
	`note` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`resolved_at` integer,
	`forwarded_to` text,
	`forwarded_at` integer,
	FOREIGN KEY (`reporter_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`post_id`) REFERENCES `posts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`comment_id`) REFERENCES `comments`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_reports` (`id`, `reporter_id`, `post_id`, `comment_id`, `reason`, `note`, `created_at`, `resolved_at`)
  SELECT `id`, `reporter_id`, `post_id`, `comment_id`, `reason`, `note`, `created_at`, `resolved_at` FROM `reports` ORDER BY `id`;--> statement-breakpoint
DROP TABLE `reports`;--> statement-breakpoint
ALTER TABLE `__new_reports` RENAME TO `reports`;--> statement-breakpoint
CREATE UNIQUE INDEX `reports_open_unique` ON `reports` (`reporter_id`,`post_id`,coalesce(`comment_id`, 0)) WHERE "reports"."resolved_at" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `reports_open_remote_unique` ON `reports` (`reporter_host`,`post_id`,coalesce(`comment_id`, 0)) WHERE "reports"."resolved_at" IS NULL AND "reports"."reporter_host" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `reports_open_idx` ON `reports` (`resolved_at`,`created_at`);--> statement-breakpoint
CREATE INDEX `reports_comment_idx` ON `reports` (`comment_id`);
