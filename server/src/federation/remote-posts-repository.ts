import type Database from 'better-sqlite3';

/** Posts of other servers' people kept here, by the Note's id (remote_posts, migration 0033; remote-posts.ts). */
export function createRemotePostsRepository(sqlite: Database.Database) {
  // Someone here follows them (an accepted follow): only then is a post of theirs kept.
  const followedHere = sqlite.prepare<[number], number>(`
    SELECT 1 FROM follows f JOIN users u ON u.id = f.follower_id
    WHERE f.followee_id = ? AND u.host IS NULL AND u.deleted_at IS NULL LIMIT 1`).pluck();
  const byUri = sqlite.prepare<[string], { postId: number; userId: number }>(
    'SELECT r.post_id AS postId, p.user_id AS userId FROM remote_posts r JOIN posts p ON p.id = r.post_id WHERE r.uri = ?',
  );
  const insert = sqlite.prepare<[number, string]>('INSERT INTO remote_posts (post_id, uri) VALUES (?, ?)');
  return {
    followedHere: (remoteUserId: number): boolean => followedHere.get(remoteUserId) !== undefined,
    byUri: (uri: string) => byUri.get(uri),
    /** In the post's insert transaction (posts' onInserted). */
    record: (postId: number, uri: string): void => void insert.run(postId, uri),
  };
}

export type RemotePostsRepository = ReturnType<typeof createRemotePostsRepository>;
