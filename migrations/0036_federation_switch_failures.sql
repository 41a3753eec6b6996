CREATE TABLE `federation_delivery_failures` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`host` text NOT NULL,
	`inbox` text NOT NULL,
	`activity_type` text NOT NULL,
	`status` integer,
	`error` text NOT NULL,
	`attempt` integer NOT NULL,
	`gave_up` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `federation_delivery_failures_created` ON `federation_delivery_failures` (`created_at`);--> statement-breakpoint
ALTER TABLE `instance_settings` ADD `federation_enabled` integer DEFAULT 0 NOT NULL;