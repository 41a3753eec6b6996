ALTER TABLE `idp_accounts` ADD `username_skeleton` text;--> statement-breakpoint
CREATE UNIQUE INDEX `idp_accounts_skeleton_unique` ON `idp_accounts` (`username_skeleton`);