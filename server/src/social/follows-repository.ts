import type Database from 'better-sqlite3';
import type { Shared } from '../kernel/shared.js';
import { badRequest, conflict, forbidden, notFound } from '../kernel/errors.js';
import { NOT_BLOCKED_BY_NAME } from '../posts/posts-repository.js';
import { SILENCED } from '../kernel/notification-rules.js';

export interface FollowState {
  following: boolean;
  /** The followee is private and has not answered the caller's follow request yet. */
  requested: boolean;
  followerCount: number;
  /** For a person on another server: the activity to deliver now that this is committed (not part of the answer). */
  federate?: FederatedFollow;
}

/**
 * A follow that crosses servers, to be told to the other server once the write has committed
 * (federation/plugin.ts delivers it): `follow` our Follow, `undo` its Undo, `accept` or `reject`
 * our answer to theirs. `activityUri` is the Follow's id, which each of them names.
 */
export interface FederatedFollow {
  act: 'follow' | 'undo' | 'accept' | 'reject';
  followerId: number;
  followeeId: number;
  activityUri: string;
}

/**
 * A block by name between one of our people and someone on another server, to be told to their
 * server once committed (moderation/blocks-repository.ts makes it, federation/plugin.ts delivers
 * it): Mastodon's `Block`, or its `Undo`. `at` is the block's created_at, which names the
 * activity (federation/follow-activities.ts, sendBlockActivity).
 */
export interface FederatedBlock {
  act: 'block' | 'unblock';
  blockerId: number;
  blockedId: number;
  at: number;
}

/** What a block or its lifting tells other servers: the follows it ended, then the Block or its Undo. */
export type BlockFederation = Array<FederatedFollow | FederatedBlock>;

/** What a remote person's Follow of one of our people became (federation/federation.ts answers it). */
export type IncomingFollow = 'accepted' | 'requested' | 'refused';

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
  const target = sqlite.prepare<[string], { id: number; isPrivate: number; followerCount: number; remote: number }>(
    `SELECT id, is_private AS isPrivate, follower_count AS followerCount, host IS NOT NULL AS remote FROM users
     WHERE username = ? COLLATE NOCASE AND deleted_at IS NULL AND suspended_at IS NULL`,
  );
  // Who blocked whom between the two, if anyone, by name first: a block by name forbids following
  // either way; one made on an anonymous post forbids its author to follow the blocker (and not
  // the other way: that refusal would tell the blocker who wrote the post).
  const block = sqlite.prepare<{ a: number; b: number }, { blockerId: number; viaAnonymousPost: number; byPost: number }>(`
    SELECT blocker_id AS blockerId, via_anonymous_post AS viaAnonymousPost, post_id IS NOT NULL AS byPost FROM blocks
    WHERE (blocker_id = @a AND blocked_id = @b AND post_id IS NULL) OR (blocker_id = @b AND blocked_id = @a)
    ORDER BY post_id IS NOT NULL, blocker_id = @a DESC LIMIT 1`);
  const insert = sqlite.prepare<[number, number, number, number, number]>(
    'INSERT INTO follows (follower_id, followee_id, created_at, accepted, notifies) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const remove = sqlite.prepare<[number, number], { createdAt: number; accepted: number; notifies: number }>(
    'DELETE FROM follows WHERE follower_id = ? AND followee_id = ? RETURNING created_at AS createdAt, accepted, notifies',
  );
  const silenced = sqlite.prepare<{ actor: number; recipient: number }, number>(SILENCED).pluck();
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
  const requester = sqlite.prepare<[string], { id: number; live: number; remote: number }>(
    'SELECT id, deleted_at IS NULL AND suspended_at IS NULL AS live, host IS NOT NULL AS remote FROM users WHERE username = ? COLLATE NOCASE',
  );

  // Follows across servers (federation/): the Follow activity's id behind each, either way.
  const activityOf = sqlite.prepare<[number, number], string>(
    'SELECT activity_uri FROM federation_follows WHERE follower_id = ? AND followee_id = ?',
  ).pluck();
  const keepActivity = sqlite.prepare<[number, number, string]>(
    'INSERT OR REPLACE INTO federation_follows (follower_id, followee_id, activity_uri) VALUES (?, ?, ?)',
  );
  const forgetActivity = sqlite.prepare<[number, number], string>(
    'DELETE FROM federation_follows WHERE follower_id = ? AND followee_id = ? RETURNING activity_uri',
  ).pluck();
  const remoteState = sqlite.prepare<[number], { live: number; remote: number; isPrivate: number; manual: number }>(`
    SELECT u.deleted_at IS NULL AND u.suspended_at IS NULL AS live, u.host IS NOT NULL AS remote, u.is_private AS isPrivate,
      COALESCE(r.manually_approves_followers, 0) AS manual
    FROM users u LEFT JOIN remote_actors r ON r.user_id = u.id WHERE u.id = ?`);
  const blockedEither = sqlite.prepare<{ a: number; b: number }, number>(
    'SELECT 1 FROM blocks WHERE (blocker_id = @a AND blocked_id = @b) OR (blocker_id = @b AND blocked_id = @a) LIMIT 1',
  ).pluck();
  /** The id of a Follow this server sends: under the follower's actor, unique by followee and time. */
  let origin = '';
  const followActivityUri = (followerId: number, followeeId: number, at: number) => `${origin}/users/${followerId}#follows/${followeeId}/${at}`;
  /** The Follow behind a cross-server follow: stored, or (a follow from before it was kept) one made up now. */
  const takeActivity = (followerId: number, followeeId: number): string =>
    forgetActivity.get(followerId, followeeId) ?? followActivityUri(followerId, followeeId, Date.now());

  /**
   * A follow made now, with its counters and a bell: the followee's ("started following you"), or,
   * when `accepted` (the followee approved a request), the follower's ("accepted your follow
   * request"): nobody is told of their own act. The followee's new follower_count.
   */
  const addFollow = (followerId: number, followeeId: number, accepted = false): number => {
    const at = Date.now();
    // A follow from a limited server's person the followee does not follow notifies nobody (notification-rules.ts).
    const notifies = accepted || silenced.get({ actor: followerId, recipient: followeeId }) === undefined ? 1 : 0;
    if (insert.run(followerId, followeeId, at, accepted ? 1 : 0, notifies).changes === 0) throw conflict('You already follow this user.');
    return accepted ? counters.followAccepted(followerId, followeeId, at) : counters.followAdded(followerId, followeeId, at, notifies);
  };

  /** The waiting request from `username` to `me`, taken out of follow_requests; 404 when there is none. */
  const takeRequest = (me: number, username: string): { id: number; remote: boolean } => {
    live.assert(me);
    const from = requester.get(username);
    const missing = () => notFound(`There is no follow request from "${username}".`);
    // Someone removed or suspended since asking is answered as if they had never asked.
    if (!from || from.live !== 1 || removeRequest.get(from.id, me) === undefined) throw missing();
    return { id: from.id, remote: from.remote === 1 };
  };

  /** A request from another server's person, answered: their server is told (the Follow stays kept while they follow). */
  const answered = (act: 'accept' | 'reject', followerId: number, me: number): FederatedFollow => ({
    act,
    followerId,
    followeeId: me,
    activityUri: act === 'accept' ? (activityOf.get(followerId, me) ?? followActivityUri(followerId, me, 0)) : takeActivity(followerId, me),
  });

  const approve = sqlite.transaction((me: number, username: string) => {
    const from = takeRequest(me, username);
    const followerCount = addFollow(from.id, me, true);
    return { followerCount, federate: from.remote ? answered('accept', from.id, me) : undefined };
  });

  const decline = sqlite.transaction((me: number, username: string): FederatedFollow | undefined => {
    const from = takeRequest(me, username);
    return from.remote ? answered('reject', from.id, me) : undefined;
  });

  // Public again: every waiting request is approved, oldest first, as Mastodon does when an account is unlocked.
  const privacy = sqlite.transaction((me: number, makePrivate: boolean) => {
    live.assert(me);
    setPrivate.run(makePrivate ? 1 : 0, me);
    let approved = 0;
    const federate: FederatedFollow[] = [];
    if (!makePrivate) {
      for (const { requesterId } of pendingOf.all(me)) {
        if (following.get(requesterId, me) === undefined) {
          addFollow(requesterId, me, true);
          approved += 1;
          if (remoteState.get(requesterId)?.remote === 1) federate.push(answered('accept', requesterId, me));
        }
      }
      clearRequests.run(me);
    }
    return { isPrivate: makePrivate, approved, federate };
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
    if (follow && followee.remote === 1) {
      // Someone on another server: asked by a Follow, followed once their server accepts it.
      if (origin === '') throw conflict('Federation is off on this server: people on other servers cannot be followed.');
      if (following.get(followerId, followee.id) !== undefined) throw conflict('You already follow this user.');
      const at = Date.now();
      if (insertRequest.run(followerId, followee.id, at).changes === 0) throw conflict('You already asked to follow this user.');
      const activityUri = followActivityUri(followerId, followee.id, at);
      keepActivity.run(followerId, followee.id, activityUri);
      return { following: false, requested: true, followerCount: followee.followerCount, federate: { act: 'follow', followerId, followeeId: followee.id, activityUri } };
    }
    const undo = (): FederatedFollow | undefined =>
      followee.remote === 1 ? { act: 'undo', followerId, followeeId: followee.id, activityUri: takeActivity(followerId, followee.id) } : undefined;
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
      const followerCount = counters.followRemoved(followerId, followee.id, removed.createdAt, removed.accepted === 1, removed.notifies);
      return { following: false, requested: false, followerCount, federate: undo() };
    }
    // Unfollowing someone the caller only asked to follow cancels the request.
    if (removeRequest.get(followerId, followee.id) !== undefined) {
      return { following: false, requested: false, followerCount: followee.followerCount, federate: undo() };
    }
    throw conflict('You do not follow this user.');
  });

  // A block ends what links the two (moderation/blocks-repository.ts): a follow either way, with
  // the counters it moved (as unfollow), and a waiting follow request either way (docs/api.md,
  // "Private accounts"). A follow that crossed servers is told to the other one as Mastodon's
  // block does: our Undo of our person's Follow, our Reject of theirs.
  const followEnded = sqlite.prepare<{ follower: number; followee: number }, number>(
    'DELETE FROM follows WHERE follower_id = @follower AND followee_id = @followee RETURNING 1',
  ).pluck();
  const endBetween = (a: number, b: number): FederatedFollow[] => {
    const federate: FederatedFollow[] = [];
    for (const [follower, followee] of [[a, b], [b, a]] as const) {
      const followed = followEnded.get({ follower, followee }) !== undefined;
      if (followed) counters.followBlocked(follower, followee);
      const asked = removeRequest.get(follower, followee) !== undefined;
      if (!followed && !asked) continue;
      const [followerRemote, followeeRemote] = [remoteState.get(follower)?.remote === 1, remoteState.get(followee)?.remote === 1];
      if (followerRemote === followeeRemote) continue;
      federate.push({ act: followeeRemote ? 'undo' : 'reject', followerId: follower, followeeId: followee, activityUri: takeActivity(follower, followee) });
    }
    return federate;
  };

  /**
   * A Follow from `remoteId` (someone on another server) of our `localId`: accepted at once, a
   * follow request for a private account, refused when a block stands between them or the person
   * cannot be followed. Sent again (their server retrying), it changes nothing and is answered the same.
   */
  const followIn = sqlite.transaction((remoteId: number, localId: number, activityUri: string): IncomingFollow => {
    const local = remoteState.get(localId);
    const remote = remoteState.get(remoteId);
    if (!local || local.live !== 1 || local.remote === 1 || !remote || remote.remote !== 1 || remote.live !== 1) return 'refused';
    if (blockedEither.get({ a: remoteId, b: localId }) !== undefined) return 'refused';
    keepActivity.run(remoteId, localId, activityUri);
    if (following.get(remoteId, localId) !== undefined) return 'accepted';
    if (local.isPrivate === 1) {
      insertRequest.run(remoteId, localId, Date.now());
      return 'requested';
    }
    addFollow(remoteId, localId);
    return 'accepted';
  });

  /**
   * A follow across servers ended by the other side: their Undo of their follow of ours, or their
   * Reject of ours. The follow or the waiting request goes, with the Follow's id; false when there
   * was neither.
   */
  const endCrossFollow = sqlite.transaction((followerId: number, followeeId: number): boolean => {
    forgetActivity.get(followerId, followeeId);
    const removed = remove.get(followerId, followeeId);
    if (removed) {
      counters.followRemoved(followerId, followeeId, removed.createdAt, removed.accepted === 1, removed.notifies);
      return true;
    }
    return removeRequest.get(followerId, followeeId) !== undefined;
  });
  /** Their Accept of our person's Follow: the request becomes a follow. */
  const acceptedOut = sqlite.transaction((localId: number, remoteId: number): boolean => {
    // Someone here no longer live (suspended, removed) keeps the request as it was: nothing changes.
    const local = remoteState.get(localId);
    if (!local || local.live !== 1) return false;
    if (removeRequest.get(localId, remoteId) === undefined) return false;
    addFollow(localId, remoteId, remoteState.get(remoteId)?.manual === 1);
    return true;
  });

  return {
    /** The origin our Follow activities' ids are built on (federation/plugin.ts sets it when federation is on). */
    setOrigin(value: string): void {
      origin = value;
    },
    followIn: (remoteId: number, localId: number, activityUri: string) => followIn.immediate(remoteId, localId, activityUri),
    undoIn: (remoteId: number, localId: number) => endCrossFollow.immediate(remoteId, localId),
    acceptedOut: (localId: number, remoteId: number) => acceptedOut.immediate(localId, remoteId),
    rejectedOut: (localId: number, remoteId: number) => endCrossFollow.immediate(localId, remoteId),
    /** The Follow activity id behind a cross-server follow or request, if kept. */
    followActivity: (followerId: number, followeeId: number): string | undefined => activityOf.get(followerId, followeeId),
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
    /**
     * Inside the caller's transaction (a block): no follow and no follow request is left between `a`
     * and `b`; what the other server must be told of those that crossed servers.
     */
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
