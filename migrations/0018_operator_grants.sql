CREATE TABLE `operator_grants` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`reason` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `operator_grants_name_unique` ON `operator_grants` ("name" COLLATE NOCASE);--> statement-breakpoint
CREATE UNIQUE INDEX `operator_grants_first_unique` ON `operator_grants` (`reason`) WHERE "operator_grants"."reason" = 'first_account';