CREATE TABLE `federation_keys` (
	`actor` text NOT NULL,
	`algorithm` text NOT NULL,
	`public_key_jwk` text NOT NULL,
	`private_key_jwk` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`actor`, `algorithm`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `federation_kv` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`expires_at` integer
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `federation_kv_expires_idx` ON `federation_kv` (`expires_at`) WHERE "federation_kv"."expires_at" IS NOT NULL;--> statement-breakpoint
CREATE TABLE `federation_queue` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`message` text NOT NULL,
	`ordering_key` text,
	`run_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`claimed_at` integer
);
--> statement-breakpoint
CREATE INDEX `federation_queue_ready_idx` ON `federation_queue` (`run_at`,`id`) WHERE "federation_queue"."claimed_at" IS NULL;