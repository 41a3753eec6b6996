CREATE TABLE `password_resets` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_by` text,
	FOREIGN KEY (`account_id`) REFERENCES `idp_accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `password_resets_account_idx` ON `password_resets` (`account_id`);--> statement-breakpoint
CREATE TABLE `session_cutoffs` (
	`sub` text PRIMARY KEY NOT NULL,
	`before` integer NOT NULL,
	`keep_jti` text
);
