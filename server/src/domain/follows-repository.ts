import type Database from 'better-sqlite3';
import { badRequest, conflict, notFound } from '../errors.js';
import { createLiveUserCheck } from './live-user.js';

export interface FollowState {
  following: boolean;
  followerCount: number;
}

/**
 * Follows, with follower_count and following_count kept in the same
 * transaction. Usernames are matched case-insensitively.
 */
export function createFollowsRepository(sqlite: Database.Database) {
  const target = sqlite.prepare<[string], { id: number }>(
    'SELECT id FROM users WHERE username = ? COLLATE NOCASE AND deleted_at IS NULL AND suspended_at IS NULL',
  );
  // Who blocked whom between the two, if anyone: a block forbids following either way.
  const block = sqlite.prepare<{ a: number; b: number }, { blockerId: number; viaAnonymousPost: number }>(`
    SELECT blocker_id AS blockerId, via_anonymous_post AS viaAnonymousPost FROM blocks
    WHERE (blocker_id = @a AND blocked_id = @b) OR (blocker_id = @b AND blocked_id = @a)
    ORDER BY blocker_id = @a DESC LIMIT 1`);
  const insert = sqlite.prepare<[number, number, number]>(
    'INSERT INTO follows (follower_id, followee_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const remove = sqlite.prepare<[number, number], { createdAt: number }>(
    'DELETE FROM follows WHERE follower_id = ? AND followee_id = ? RETURNING created_at AS createdAt',
  );
  // The followee's row, with their bell (notifications-repository.ts): +1 for a new follower,
  // -1 for one gone whose follow was unread. A follow only stands between people with no block.
  const addFollower = sqlite.prepare<{ followee: number; at: number }, { followerCount: number }>(`
    UPDATE users SET follower_count = follower_count + 1, unread_notifications = unread_notifications + 1,
      notified_at = max(notified_at, @at)
    WHERE id = @followee RETURNING follower_count AS followerCount`);
  const dropFollower = sqlite.prepare<{ followee: number; at: number }, { followerCount: number }>(`
    UPDATE users SET follower_count = follower_count - 1,
      unread_notifications = max(unread_notifications - (@at > notifications_seen_at), 0)
    WHERE id = @followee RETURNING follower_count AS followerCount`);
  const bumpFollowing = sqlite.prepare<[number, number]>('UPDATE users SET following_count = following_count + ? WHERE id = ?');
  const followers = sqlite.prepare<[number], { username: string }>(`
    SELECT u.username FROM follows f JOIN users u ON u.id = f.follower_id
    WHERE f.followee_id = ? AND u.deleted_at IS NULL AND u.suspended_at IS NULL
    ORDER BY f.created_at, f.follower_id`);

  const live = createLiveUserCheck(sqlite);

  const change = sqlite.transaction((followerId: number, username: string, follow: boolean): FollowState => {
    // The caller may have been removed or suspended since the request was authenticated.
    live.assert(followerId);
    const followee = target.get(username);
    if (!followee) throw notFound(`There is no user named "${username}".`);
    if (followee.id === followerId) throw badRequest('You cannot follow yourself.');
    if (follow) {
      const blocked = block.get({ a: followerId, b: followee.id });
      // Blocked by them, or blocked by the caller as an anonymous post's author: as if there were no such user.
      if (blocked && (blocked.blockerId !== followerId || blocked.viaAnonymousPost === 1)) {
        throw notFound(`There is no user named "${username}".`);
      }
      if (blocked) throw conflict(`You blocked ${username}. Unblock them to follow.`);
    }
    let followerCount: number;
    if (follow) {
      const at = Date.now();
      if (insert.run(followerId, followee.id, at).changes === 0) throw conflict('You already follow this user.');
      ({ followerCount } = addFollower.get({ followee: followee.id, at })!);
    } else {
      const removed = remove.get(followerId, followee.id);
      if (!removed) throw conflict('You do not follow this user.');
      ({ followerCount } = dropFollower.get({ followee: followee.id, at: removed.createdAt })!);
    }
    bumpFollowing.run(follow ? 1 : -1, followerId);
    return { following: follow, followerCount };
  });

  return {
    follow: (followerId: number, username: string) => change.immediate(followerId, username, true),
    unfollow: (followerId: number, username: string) => change.immediate(followerId, username, false),
    followersOf(username: string): Array<{ username: string }> {
      const user = target.get(username);
      if (!user) throw notFound(`There is no user named "${username}".`);
      return followers.all(user.id);
    },
  };
}

export type FollowsRepository = ReturnType<typeof createFollowsRepository>;
