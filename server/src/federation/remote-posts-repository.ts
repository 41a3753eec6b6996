import type Database from 'better-sqlite3';

/** A like or comment of one of ours on a post of another server, made or taken back (federation_interaction_events, migration 0034). */
export interface InteractionEvent {
  id: number;
  kind: 'like' | 'unlike' | 'comment' | 'uncomment';
  postId: number;
  userId: number;
  commentId: number | null;
}

/** Posts of other servers' people kept here, by the Note's id (remote_posts, migration 0033; remote-posts.ts). */
export function createRemotePostsRepository(sqlite: Database.Database) {
  // Someone here follows them (an accepted follow): only then is a post of theirs kept.
  const followedHere = sqlite.prepare<[number], number>(`
    SELECT 1 FROM follows f JOIN users u ON u.id = f.follower_id
    WHERE f.followee_id = ? AND u.host IS NULL AND u.deleted_at IS NULL LIMIT 1`).pluck();
  const byUri = sqlite.prepare<[string], { postId: number; userId: number }>(
    'SELECT r.post_id AS postId, p.user_id AS userId FROM remote_posts r JOIN posts p ON p.id = r.post_id WHERE r.uri = ?',
  );
  const insert = sqlite.prepare<[number, string, number]>('INSERT INTO remote_posts (post_id, uri, is_public) VALUES (?, ?, ?)');
  const ofPost = sqlite.prepare<[number], { uri: string; isPublic: number; authorId: number }>(
    'SELECT r.uri, r.is_public AS isPublic, p.user_id AS authorId FROM remote_posts r JOIN posts p ON p.id = r.post_id WHERE r.post_id = ?',
  );
  const insertComment = sqlite.prepare<[number, string]>('INSERT OR IGNORE INTO remote_comments (comment_id, uri) VALUES (?, ?)');
  const commentByUri = sqlite.prepare<[string], { commentId: number; userId: number }>(
    'SELECT r.comment_id AS commentId, c.user_id AS userId FROM remote_comments r JOIN comments c ON c.id = r.comment_id WHERE r.uri = ?',
  );
  const events = sqlite.prepare<[number], InteractionEvent>(
    `SELECT id, kind, post_id AS postId, user_id AS userId, comment_id AS commentId FROM federation_interaction_events ORDER BY id LIMIT ?`,
  );
  const doneEvent = sqlite.prepare<[number]>('DELETE FROM federation_interaction_events WHERE id = ?');
  const comment = sqlite.prepare<[number], { content: string; createdAt: number }>(
    'SELECT content, created_at AS createdAt FROM comments WHERE id = ?',
  );
  return {
    followedHere: (remoteUserId: number): boolean => followedHere.get(remoteUserId) !== undefined,
    byUri: (uri: string) => byUri.get(uri),
    /** In the post's insert transaction (posts' onInserted). */
    record: (postId: number, uri: string, isPublic: boolean): void => void insert.run(postId, uri, isPublic ? 1 : 0),
    /** The Note a post of another server was made from, and its author here. */
    ofPost: (postId: number) => ofPost.get(postId),
    recordComment: (commentId: number, uri: string): void => void insertComment.run(commentId, uri),
    commentByUri: (uri: string) => commentByUri.get(uri),
    /** The oldest likes and comments of ours on their posts to tell their servers of. */
    events: (limit: number): InteractionEvent[] => events.all(limit),
    done: (eventId: number): void => void doneEvent.run(eventId),
    comment: (commentId: number) => comment.get(commentId),
  };
}

export type RemotePostsRepository = ReturnType<typeof createRemotePostsRepository>;
