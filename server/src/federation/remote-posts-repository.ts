import type Database from 'better-sqlite3';

/** A like or comment of one of ours on a post of another server, made or taken back (federation_interaction_events, migration 0034). */
export interface InteractionEvent {
  id: number;
  kind: 'like' | 'unlike' | 'comment' | 'uncomment';
  postId: number;
  userId: number;
  commentId: number | null;
}

/** A comment as interactions.ts serves it as a Note, and what decides who may fetch it. */
export interface CommentObject {
  id: number;
  userId: number;
  content: string;
  createdAt: number;
  postId: number;
  postAuthorId: number;
  /** 1: a live person of ours wrote it, shown, on a named, shown post whose author is live. */
  shown: number;
  postAuthorPrivate: number;
  /** The Note's id when the post is another server's; null for one of ours. */
  remoteUri: string | null;
  remotePublic: number | null;
  /** The post's author's actor when they are of another server. */
  postAuthorUri: string | null;
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
  // One of our people's comments as another server may fetch it (interactions.ts, the comment's
  // object), with what decides who may: the post it is on, its author, and whether that post is
  // another server's (and then, whether it was public there).
  const commentObject = sqlite.prepare<[number], CommentObject>(`
    SELECT c.id, c.user_id AS userId, c.content, c.created_at AS createdAt, c.post_id AS postId, p.user_id AS postAuthorId,
      (c.hidden = 0 AND cu.host IS NULL AND cu.deleted_at IS NULL AND cu.suspended_at IS NULL
        AND p.is_anonymous = 0 AND p.is_profile_picture = 0 AND p.hidden = 0
        AND pu.deleted_at IS NULL AND pu.suspended_at IS NULL) AS shown,
      pu.is_private AS postAuthorPrivate, r.uri AS remoteUri, r.is_public AS remotePublic, ra.uri AS postAuthorUri
    FROM comments c JOIN users cu ON cu.id = c.user_id JOIN posts p ON p.id = c.post_id JOIN users pu ON pu.id = p.user_id
    LEFT JOIN remote_posts r ON r.post_id = p.id LEFT JOIN remote_actors ra ON ra.user_id = p.user_id
    WHERE c.id = ?`);
  // An accepted follow of a local person by the remote actor at this address.
  const followsByUri = sqlite.prepare<[string, number], number>(`
    SELECT 1 FROM remote_actors ra JOIN follows f ON f.follower_id = ra.user_id JOIN users u ON u.id = ra.user_id
    WHERE ra.uri = ? AND f.followee_id = ? AND u.deleted_at IS NULL AND u.suspended_at IS NULL`).pluck();
  return {
    commentObject: (commentId: number): CommentObject | undefined => commentObject.get(commentId),
    /** Whether the remote actor at `uri` follows local person `userId` (an accepted follow). */
    follows: (uri: string, userId: number): boolean => followsByUri.get(uri, userId) !== undefined,
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
