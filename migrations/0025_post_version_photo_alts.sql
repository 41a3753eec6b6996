ALTER TABLE `post_versions` ADD `photo_alts` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
-- Backfill by hand: until now only an album's first description could be edited, so every
-- earlier version of an album had the other photos' descriptions they have today.
UPDATE `post_versions` SET `photo_alts` = (
	SELECT json_group_array(`f`.`alt_text`) FROM (
		SELECT `alt_text` FROM `post_photos` WHERE `post_id` = `post_versions`.`post_id` ORDER BY `position`
	) AS `f`
) WHERE `post_id` IN (SELECT `post_id` FROM `post_photos`);
