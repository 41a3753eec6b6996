import type Database from 'better-sqlite3';

/** A change to one of our posts that other servers are to be told of (federation_post_events, migration 0032). */
export interface PostEvent {
  id: number;
  postId: number;
  userId: number;
  kind: 'create' | 'update' | 'delete';
}

/** One photo of a post, as a Note's attachment. */
export interface FederatedPhoto {
  mediaKey: string;
  width: number;
  height: number;
  altText: string;
}

/** A post of ours as other servers may see it, with what decides whether they may. */
export interface FederatedPost {
  id: number;
  userId: number;
  /** The author's name, for the link to their page in the app. */
  username: string;
  caption: string;
  createdAt: number;
  editedAt: number | null;
  sensitive: number;
  contentWarning: string;
  photoCount: number;
  /** JSON array of the local names the caption mentions, or null. */
  mentions: string | null;
  isPrivate: number;
  /** 1: named, not a profile picture, not hidden, its author one of ours who is live: it may go out. */
  shareable: number;
  photos: FederatedPhoto[];
  tags: string[];
}

/** Where to deliver to one remote follower. */
export interface FollowerInbox {
  uri: string;
  inbox: string;
  sharedInbox: string | null;
}

/**
 * What federation reads of our posts (federation/post-activities.ts): the events the triggers of
 * migration 0032 write, the posts as Notes, the followers on other servers, and which posts
 * other servers got. Anonymous posts are never shareable, whatever else they are.
 */
export function createFederatedPostsRepository(sqlite: Database.Database) {
  const events = sqlite.prepare<[number], PostEvent>(
    'SELECT id, post_id AS postId, user_id AS userId, kind FROM federation_post_events ORDER BY id LIMIT ?',
  );
  const doneEvent = sqlite.prepare<[number]>('DELETE FROM federation_post_events WHERE id = ?');
  const post = sqlite.prepare<[number], Omit<FederatedPost, 'photos' | 'tags'> & FederatedPhoto>(`
    SELECT p.id, p.user_id AS userId, u.username, p.caption, p.created_at AS createdAt, p.edited_at AS editedAt, p.sensitive,
      p.content_warning AS contentWarning, p.photo_count AS photoCount, p.mentions, u.is_private AS isPrivate,
      p.media_key AS mediaKey, p.width, p.height, p.alt_text AS altText,
      (p.is_anonymous = 0 AND p.is_profile_picture = 0 AND p.hidden = 0 AND u.host IS NULL
        AND u.deleted_at IS NULL AND u.suspended_at IS NULL) AS shareable
    FROM posts p JOIN users u ON u.id = p.user_id WHERE p.id = ?`);
  const albumPhotos = sqlite.prepare<[number], FederatedPhoto>(
    'SELECT media_key AS mediaKey, width, height, alt_text AS altText FROM post_photos WHERE post_id = ? ORDER BY position',
  );
  const tags = sqlite.prepare<[number], string>('SELECT tag FROM post_hashtags WHERE post_id = ? ORDER BY tag').pluck();
  const personId = sqlite.prepare<[string], number>(
    'SELECT id FROM users WHERE username = ? COLLATE NOCASE AND host IS NULL AND deleted_at IS NULL AND suspended_at IS NULL',
  ).pluck();
  // Accepted followers only (a request is not a follow); one row per follower.
  const followers = sqlite.prepare<[number], FollowerInbox>(`
    SELECT r.uri, r.inbox, r.shared_inbox AS sharedInbox FROM follows f
    JOIN remote_actors r ON r.user_id = f.follower_id JOIN users u ON u.id = f.follower_id
    WHERE f.followee_id = ? AND u.deleted_at IS NULL AND u.suspended_at IS NULL`);
  const delivered = sqlite.prepare<[number, number, number]>(
    'INSERT OR REPLACE INTO federated_posts (post_id, user_id, delivered_at, deleted_at) VALUES (?, ?, ?, NULL)',
  );
  const deleted = sqlite.prepare<[number, number]>('UPDATE federated_posts SET deleted_at = ? WHERE post_id = ?');
  // A person's outbox page: named, visible posts newest first, on posts_user_feed_idx.
  const outbox = sqlite.prepare<{ user: number; at: number; id: number; limit: number }, { id: number; createdAt: number }>(`
    SELECT id, created_at AS createdAt FROM posts
    WHERE user_id = @user AND is_profile_picture = 0 AND is_anonymous = 0 AND hidden = 0
      AND (created_at < @at OR (created_at = @at AND id < @id))
    ORDER BY created_at DESC, id DESC LIMIT @limit`);
  const actorDeletions = sqlite.prepare<[number], { userId: number; recipients: string }>(
    'SELECT user_id AS userId, recipients FROM federation_actor_deletions ORDER BY created_at LIMIT ?',
  );
  const actorDeleted = sqlite.prepare<[number]>('DELETE FROM federation_actor_deletions WHERE user_id = ?');
  const state = sqlite.prepare<[number], { userId: number; deletedAt: number | null }>(
    'SELECT user_id AS userId, deleted_at AS deletedAt FROM federated_posts WHERE post_id = ?',
  );

  return {
    /** The oldest events, at most `limit`. */
    events: (limit: number): PostEvent[] => events.all(limit),
    done: (eventId: number): void => void doneEvent.run(eventId),
    /** A post with its photos (the first is the post's own) and tags; undefined once removed. */
    post(postId: number): FederatedPost | undefined {
      const row = post.get(postId);
      if (!row) return undefined;
      const { mediaKey, width, height, altText, ...rest } = row;
      const first = { mediaKey, width, height, altText };
      return { ...rest, photos: row.photoCount > 1 ? [first, ...albumPhotos.all(postId)] : [first], tags: tags.all(postId) };
    },
    /** A local person's id by name, for a mention's link; undefined for no one (or someone gone). */
    personId: (username: string): number | undefined => personId.get(username),
    followersOf: (userId: number): FollowerInbox[] => followers.all(userId),
    /** A page of a person's named posts before (at, id), newest first. */
    outboxPage: (userId: number, before: { at: number; id: number }, limit: number) =>
      outbox.all({ user: userId, at: before.at, id: before.id, limit }),
    markDelivered: (postId: number, userId: number): void => void delivered.run(postId, userId, Date.now()),
    markDeleted: (postId: number): void => void deleted.run(Date.now(), postId),
    /** People of ours removed, with whom on other servers to tell (federation/person-steps.ts). */
    actorDeletions: (limit: number): Array<{ userId: number; recipients: FollowerInbox[] }> =>
      actorDeletions.all(limit).map((r) => ({ userId: r.userId, recipients: JSON.parse(r.recipients) as FollowerInbox[] })),
    actorDeletionSent: (userId: number): void => void actorDeleted.run(userId),
    /** Whether other servers got this post, and whether it was deleted since. */
    federated: (postId: number): { userId: number; deletedAt: number | null } | undefined => state.get(postId),
  };
}

export type FederatedPostsRepository = ReturnType<typeof createFederatedPostsRepository>;
