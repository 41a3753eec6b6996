import type Database from 'better-sqlite3';
import { badRequest, conflict, forbidden, notFound } from '../errors.js';
import { createCounters } from './counters.js';
import { createLiveUserCheck } from './live-user.js';
import { NOT_BLOCKED_BY_NAME } from './posts-repository.js';

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
  // Who blocked whom between the two, if anyone, by name first: a block by name forbids following
  // either way; one made on an anonymous post forbids its author to follow the blocker (and not
  // the other way: that refusal would tell the blocker who wrote the post).
  const block = sqlite.prepare<{ a: number; b: number }, { blockerId: number; viaAnonymousPost: number; byPost: number }>(`
    SELECT blocker_id AS blockerId, via_anonymous_post AS viaAnonymousPost, post_id IS NOT NULL AS byPost FROM blocks
    WHERE (blocker_id = @a AND blocked_id = @b AND post_id IS NULL) OR (blocker_id = @b AND blocked_id = @a)
    ORDER BY post_id IS NOT NULL, blocker_id = @a DESC LIMIT 1`);
  const insert = sqlite.prepare<[number, number, number]>(
    'INSERT INTO follows (follower_id, followee_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const remove = sqlite.prepare<[number, number], { createdAt: number }>(
    'DELETE FROM follows WHERE follower_id = ? AND followee_id = ? RETURNING created_at AS createdAt',
  );
  // follower_count, following_count and the followee's bell (counters.ts).
  const counters = createCounters(sqlite);
  const followers = sqlite.prepare<{ user: number }, { username: string }>(`
    SELECT u.username FROM follows f JOIN users u ON u.id = f.follower_id
    WHERE f.followee_id = @user AND u.deleted_at IS NULL AND u.suspended_at IS NULL
    ORDER BY f.created_at, f.follower_id`);
  // For a viewer with blocks: without the people a block by name stands between them and the viewer.
  const followersBlocking = sqlite.prepare<{ user: number; viewer: number }, { username: string }>(`
    SELECT u.username FROM follows f JOIN users u ON u.id = f.follower_id
    WHERE f.followee_id = @user AND u.deleted_at IS NULL AND u.suspended_at IS NULL AND ${NOT_BLOCKED_BY_NAME('u.id')}
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
      // They blocked the caller through one of the caller's anonymous posts: their profile shows, the follow is refused.
      if (blocked?.byPost === 1) throw forbidden(`${username} has blocked you: you cannot follow them.`);
      // Blocked by them by name, or by the caller before blocks named a post (shown without a name): as if there were no such user.
      if (blocked && (blocked.blockerId !== followerId || blocked.viaAnonymousPost === 1)) {
        throw notFound(`There is no user named "${username}".`);
      }
      if (blocked) throw conflict(`You blocked ${username}. Unblock them to follow.`);
    }
    let followerCount: number;
    if (follow) {
      const at = Date.now();
      if (insert.run(followerId, followee.id, at).changes === 0) throw conflict('You already follow this user.');
      followerCount = counters.followAdded(followerId, followee.id, at);
    } else {
      const removed = remove.get(followerId, followee.id);
      if (!removed) throw conflict('You do not follow this user.');
      followerCount = counters.followRemoved(followerId, followee.id, removed.createdAt);
    }
    return { following: follow, followerCount };
  });

  return {
    follow: (followerId: number, username: string) => change.immediate(followerId, username, true),
    unfollow: (followerId: number, username: string) => change.immediate(followerId, username, false),
    /**
     * The followers of `userId` (a profile the viewer may see: users-repository's publicProfile),
     * as `viewer` may see them: nobody with a block by name between them and the viewer.
     */
    followersOf(userId: number, viewer: { id: number; blockCount: number }): Array<{ username: string }> {
      return viewer.blockCount === 0 ? followers.all({ user: userId }) : followersBlocking.all({ user: userId, viewer: viewer.id });
    },
  };
}

export type FollowsRepository = ReturnType<typeof createFollowsRepository>;
