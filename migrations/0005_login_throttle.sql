CREATE TABLE `login_attempts` (
	`key` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `login_attempts_key_at_idx` ON `login_attempts` (`key`,`at`);--> statement-breakpoint
CREATE INDEX `login_attempts_at_idx` ON `login_attempts` (`at`);--> statement-breakpoint
CREATE TABLE `login_buckets` (
	`key` text PRIMARY KEY NOT NULL,
	`level` real NOT NULL,
	`updated_at` integer NOT NULL
);
