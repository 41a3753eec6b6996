CREATE TABLE `federation_domain_allows` (
	`domain` text PRIMARY KEY NOT NULL,
	`comment` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `instance_settings` ADD `federation_allow_list` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `limited` integer DEFAULT 0 NOT NULL;