-- As first written, this migration rewrote the likes into a WITHOUT ROWID table on
-- (post_id, user_id) with indexes by (user_id, created_at) and by recipient; migration 0015
-- replaced that shape two days later. Both rewrites of the 5M likes at the reference size
-- are now one, in 0015, into the final shape (docs/self-hosting.md, "Upgrade"): a database
-- that has not run this migration runs 0015 in the same start, before any server reads it.
-- One harmless statement, as drizzle runs each statement of a migration and a file of
-- comments alone is no statement.
SELECT 1;
