-- Substring search over usernames: a trigram full-text index kept in step with
-- users by triggers. Prefix matches keep using users_username_nocase_unique;
-- this serves "contains" without scanning every user.
CREATE VIRTUAL TABLE `users_fts` USING fts5(username, content='users', content_rowid='id', tokenize='trigram case_sensitive 0');
--> statement-breakpoint
CREATE TRIGGER `users_fts_after_insert` AFTER INSERT ON `users` BEGIN
  INSERT INTO users_fts(rowid, username) VALUES (new.id, new.username);
END;
--> statement-breakpoint
CREATE TRIGGER `users_fts_after_delete` AFTER DELETE ON `users` BEGIN
  INSERT INTO users_fts(users_fts, rowid, username) VALUES ('delete', old.id, old.username);
END;
--> statement-breakpoint
CREATE TRIGGER `users_fts_after_update` AFTER UPDATE OF `username` ON `users` BEGIN
  INSERT INTO users_fts(users_fts, rowid, username) VALUES ('delete', old.id, old.username);
  INSERT INTO users_fts(rowid, username) VALUES (new.id, new.username);
END;
--> statement-breakpoint
INSERT INTO users_fts(users_fts) VALUES ('rebuild');
