-- A person's notifications of comments are found through their posts and each post's
-- comments by time (comments_post_idx, which every comment writes anyway;
-- server/src/domain/notifications-repository.ts), so a comment writes no index entry by
-- recipient: one b-tree page less per comment (docs/performance.md).
DROP INDEX `comments_recipient_idx`;
