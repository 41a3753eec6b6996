CREATE TABLE `federation_domain_blocks` (
	`domain` text PRIMARY KEY NOT NULL,
	`severity` text NOT NULL,
	`reject_media` integer DEFAULT 0 NOT NULL,
	`reject_reports` integer DEFAULT 0 NOT NULL,
	`public_comment` text DEFAULT '' NOT NULL,
	`private_comment` text DEFAULT '' NOT NULL,
	`obfuscate` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
