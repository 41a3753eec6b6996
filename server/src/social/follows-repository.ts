import type Database from 'better-sqlite3';
import type { Shared } from '../kernel/shared.js';
import { badRequest, conflict, forbidden, notFound } from '../kernel/errors.js';
import { NOT_BLOCKED_BY_NAME } from '../posts/posts-repository.js';

export interface FollowState {
  following: boolean;
  /** The followee is private and has not answered the caller's follow request yet. */
  requested: boolean;
  followerCount: number;
}

/** A follow request waiting for the caller's approval. */
export interface FollowRequestRow {
  username: string;
  pictureKey: string | null;
  createdAt: number;
}

/**
 * Follows, with follower_count and following_count kept in the same
 * transaction. Usernames are matched case-insensitively.
 */
export function createFollowsRepository(sqlite: Database.Database, { counters, live }: Shared) {
  const target = sqlite.prepare<[string], { id: number; isPrivate: number; followerCount: number }>(
    'SELECT id, is_private AS isPrivate, follower_count AS followerCount FROM users WHERE username = ? COLLATE NOCASE AND deleted_at IS NULL AND suspended_at IS NULL',
  );
  // Who blocked whom between the two, if anyone, by name first: a block by name forbids following
  // either way; one made on an anonymous post forbids its author to follow the blocker (and not
  // the other way: that refusal would tell the blocker who wrote the post).
  const block = sqlite.prepare<{ a: number; b: number }, { blockerId: number; viaAnonymousPost: number; byPost: number }>(`
    SELECT blocker_id AS blockerId, via_anonymous_post AS viaAnonymousPost, post_id IS NOT NULL AS byPost FROM blocks
    WHERE (blocker_id = @a AND blocked_id = @b AND post_id IS NULL) OR (blocker_id = @b AND blocked_id = @a)
    ORDER BY post_id IS NOT NULL, blocker_id = @a DESC LIMIT 1`);
  const insert = sqlite.prepare<[number, number, number, number]>(
    'INSERT INTO follows (follower_id, followee_id, created_at, accepted) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const remove = sqlite.prepare<[number, number], { createdAt: number; accepted: number }>(
    'DELETE FROM follows WHERE follower_id = ? AND followee_id = ? RETURNING created_at AS createdAt, accepted',
  );
  // follower_count, following_count and the followee's bell (counters.ts).
  const followers = sqlite.prepare<{ user: number }, { username: string }>(`
    SELECT u.username FROM follows f JOIN users u ON u.id = f.follower_id
    WHERE f.followee_id = @user AND u.deleted_at IS NULL AND u.suspended_at IS NULL
    ORDER BY f.created_at, f.follower_id`);
  // For a viewer with blocks: without the people a block by name stands between them and the viewer.
  const followersBlocking = sqlite.prepare<{ user: number; viewer: number }, { username: string }>(`
    SELECT u.username FROM follows f JOIN users u ON u.id = f.follower_id
    WHERE f.followee_id = @user AND u.deleted_at IS NULL AND u.suspended_at IS NULL AND ${NOT_BLOCKED_BY_NAME('u.id')}
    ORDER BY f.created_at, f.follower_id`);


  // Follow requests (docs/api.md, "Private accounts"): rows of follow_requests until answered.
  const following = sqlite.prepare<[number, number], number>('SELECT 1 FROM follows WHERE follower_id = ? AND followee_id = ?').pluck();
  const insertRequest = sqlite.prepare<[number, number, number]>(
    'INSERT INTO follow_requests (requester_id, target_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const removeRequest = sqlite.prepare<[number, number], number>(
    'DELETE FROM follow_requests WHERE requester_id = ? AND target_id = ? RETURNING 1',
  ).pluck();
  // Requests from people who are still there and not suspended, oldest first (the follow_requests primary key).
  const requests = sqlite.prepare<[number], FollowRequestRow>(`
    SELECT u.username, u.profile_picture_key AS pictureKey, r.created_at AS createdAt
    FROM follow_requests r JOIN users u ON u.id = r.requester_id
    WHERE r.target_id = ? AND u.deleted_at IS NULL AND u.suspended_at IS NULL
    ORDER BY r.created_at, r.requester_id`);
  const pendingOf = sqlite.prepare<[number], { requesterId: number }>(`
    SELECT r.requester_id AS requesterId FROM follow_requests r JOIN users u ON u.id = r.requester_id
    WHERE r.target_id = ? AND u.deleted_at IS NULL AND u.suspended_at IS NULL
    ORDER BY r.created_at, r.requester_id`);
  // The bell's share of them (GET /api/notifications/unread): usually an empty range of the primary key.
  const waiting = sqlite.prepare<[number], number>(`
    SELECT count(*) FROM follow_requests r JOIN users u ON u.id = r.requester_id
    WHERE r.target_id = ? AND u.deleted_at IS NULL AND u.suspended_at IS NULL`).pluck();
  const clearRequests = sqlite.prepare<[number]>('DELETE FROM follow_requests WHERE target_id = ?');
  const setPrivate = sqlite.prepare<[number, number]>('UPDATE users SET is_private = ? WHERE id = ?');
  const isPrivate = sqlite.prepare<[number], number>('SELECT is_private FROM users WHERE id = ?').pluck();
  const requester = sqlite.prepare<[string], { id: number; live: number }>(
    'SELECT id, deleted_at IS NULL AND suspended_at IS NULL AS live FROM users WHERE username = ? COLLATE NOCASE',
  );

  /**
   * A follow made now, with its counters and a bell: the followee's ("started following you"), or,
   * when `accepted` (the followee approved a request), the follower's ("accepted your follow
   * request"): nobody is told of their own act. The followee's new follower_count.
   */
  const addFollow = (followerId: number, followeeId: number, accepted = false): number => {
    const at = Date.now();
    if (insert.run(followerId, followeeId, at, accepted ? 1 : 0).changes === 0) throw conflict('You already follow this user.');
    return accepted ? counters.followAccepted(followerId, followeeId, at) : counters.followAdded(followerId, followeeId, at);
  };

  /** The waiting request from `username` to `me`, taken out of follow_requests; 404 when there is none. */
  const takeRequest = (me: number, username: string): number => {
    live.assert(me);
    const from = requester.get(username);
    const missing = () => notFound(`There is no follow request from "${username}".`);
    // Someone removed or suspended since asking is answered as if they had never asked.
    if (!from || from.live !== 1 || removeRequest.get(from.id, me) === undefined) throw missing();
    return from.id;
  };

  const approve = sqlite.transaction((me: number, username: string) => {
    const from = takeRequest(me, username);
    return { followerCount: addFollow(from, me, true) };
  });

  const decline = sqlite.transaction((me: number, username: string) => {
    takeRequest(me, username);
  });

  // Public again: every waiting request is approved, oldest first, as Mastodon does when an account is unlocked.
  const privacy = sqlite.transaction((me: number, makePrivate: boolean) => {
    live.assert(me);
    setPrivate.run(makePrivate ? 1 : 0, me);
    let approved = 0;
    if (!makePrivate) {
      for (const { requesterId } of pendingOf.all(me)) {
        if (following.get(requesterId, me) === undefined) {
          addFollow(requesterId, me, true);
          approved += 1;
        }
      }
      clearRequests.run(me);
    }
    return { isPrivate: makePrivate, approved };
  });

  const change = sqlite.transaction((followerId: number, username: string, follow: boolean): FollowState => {
    // The caller may have been removed or suspended since the request was authenticated.
    live.assert(followerId);
    const followee = target.get(username);
    if (!followee) throw notFound(`There is no user named "${username}".`);
    if (followee.id === followerId) throw badRequest('You cannot follow yourself.');
    const blocked = block.get({ a: followerId, b: followee.id });
    // Blocked by them by name, or by the caller before blocks named a post (shown without a name): as if
    // there were no such user, to unfollow too (a 409 there told the blocked person the blocker exists).
    if (blocked && blocked.byPost !== 1 && (blocked.blockerId !== followerId || blocked.viaAnonymousPost === 1)) {
      throw notFound(`There is no user named "${username}".`);
    }
    if (follow) {
      // They blocked the caller through one of the caller's anonymous posts: their profile shows, the follow is refused.
      if (blocked?.byPost === 1) throw forbidden(`${username} has blocked you: you cannot follow them.`);
      if (blocked) throw conflict(`You blocked ${username}. Unblock them to follow.`);
    }
    if (follow) {
      // A private account is asked instead; someone who already follows it stays a follower.
      if (followee.isPrivate === 1 && following.get(followerId, followee.id) === undefined) {
        if (insertRequest.run(followerId, followee.id, Date.now()).changes === 0) {
          throw conflict('You already asked to follow this user.');
        }
        return { following: false, requested: true, followerCount: followee.followerCount };
      }
      return { following: true, requested: false, followerCount: addFollow(followerId, followee.id) };
    }
    const removed = remove.get(followerId, followee.id);
    if (removed) {
      return { following: false, requested: false, followerCount: counters.followRemoved(followerId, followee.id, removed.createdAt, removed.accepted === 1) };
    }
    // Unfollowing someone the caller only asked to follow cancels the request.
    if (removeRequest.get(followerId, followee.id) !== undefined) {
      return { following: false, requested: false, followerCount: followee.followerCount };
    }
    throw conflict('You do not follow this user.');
  });

  // A block ends what links the two (moderation/blocks-repository.ts): a follow either way, with
  // the counters it moved (as unfollow), and a waiting follow request either way (docs/api.md,
  // "Private accounts").
  const followEnded = sqlite.prepare<{ follower: number; followee: number }, number>(
    'DELETE FROM follows WHERE follower_id = @follower AND followee_id = @followee RETURNING 1',
  ).pluck();
  const requestsEnded = sqlite.prepare<{ a: number; b: number }>(
    'DELETE FROM follow_requests WHERE (requester_id = @a AND target_id = @b) OR (requester_id = @b AND target_id = @a)',
  );
  const endBetween = (a: number, b: number): void => {
    for (const [follower, followee] of [[a, b], [b, a]] as const) {
      if (followEnded.get({ follower, followee }) !== undefined) counters.followBlocked(follower, followee);
    }
    requestsEnded.run({ a, b });
  };

  return {
    follow: (followerId: number, username: string) => change.immediate(followerId, username, true),
    /** The follow requests waiting for `me`'s answer, oldest first. */
    requestsTo: (me: number): FollowRequestRow[] => requests.all(me),
    /** How many follow requests wait for `me`'s answer. */
    waitingFor: (me: number): number => waiting.get(me) ?? 0,
    /** Approves `username`'s request to follow `me`: they become a follower. 404 when there is no such request. */
    approve: (me: number, username: string) => approve.immediate(me, username),
    /** Declines `username`'s request to follow `me`. 404 when there is no such request. */
    decline: (me: number, username: string) => decline.immediate(me, username),
    /** Makes `me` private or public; public again approves every waiting request. */
    setPrivate: (me: number, makePrivate: boolean) => privacy.immediate(me, makePrivate),
    isPrivate: (me: number) => isPrivate.get(me) === 1,
    unfollow: (followerId: number, username: string) => change.immediate(followerId, username, false),
    /** Inside the caller's transaction (a block): no follow and no follow request is left between `a` and `b`. */
    endBetween,
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
