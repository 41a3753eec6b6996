import type Database from 'better-sqlite3';
import type { Shared } from '../kernel/shared.js';
import { badRequest, notFound } from '../kernel/errors.js';
import type { PostsRepository } from '../posts/posts-repository.js';
import type { BlockFederation, FederatedBlock, FollowsRepository } from '../social/follows-repository.js';

/** One block as its maker sees it: no name when it was made on an anonymous post. */
export interface BlockRow {
  blockId: number;
  username: string | null;
  pictureKey: string | null;
  createdAt: number;
}

/**
 * Blocking; the rule is docs/api.md's "Blocks and anonymity".
 *
 * A block by name (post_id null) hides each person's named posts, their comments shown with
 * their name, and their profile from the other in every feed, profile, search, list and
 * bell (the read statements check the blocks table; a viewer with users.block_count = 0
 * skips those checks), forbids follows, likes and comments on named posts between them, and
 * removes a follow either way, with its counters, in the same transaction. It never changes
 * which anonymous posts either of them sees.
 *
 * A block made as "the author of this post" on an anonymous post (post_id set) hides that one
 * post from its maker and nothing else: not the author's name, profile, other posts, comments,
 * follows or notifications, since any of those vanishing would tell the maker who wrote it, or
 * which other anonymous posts are by the same person. Its author can no longer like or comment
 * on the maker's named posts, nor follow them.
 */
export function createBlocksRepository(
  sqlite: Database.Database,
  { counters, live }: Shared,
  posts: PostsRepository,
  follows: Pick<FollowsRepository, 'endBetween'>,
) {
  const target = sqlite.prepare<[string], { id: number }>(
    'SELECT id FROM users WHERE username = ? COLLATE NOCASE AND deleted_at IS NULL AND suspended_at IS NULL',
  );
  const existingNamed = sqlite.prepare<{ blocker: number; blocked: number }, { id: number; viaAnonymousPost: number }>(
    'SELECT id, via_anonymous_post AS viaAnonymousPost FROM blocks WHERE blocker_id = @blocker AND blocked_id = @blocked AND post_id IS NULL',
  );
  const blockedMe = sqlite.prepare<{ blocker: number; blocked: number }, number>(
    'SELECT 1 FROM blocks WHERE blocker_id = @blocker AND blocked_id = @blocked AND post_id IS NULL',
  ).pluck();
  const insertNamed = sqlite.prepare<{ blocker: number; blocked: number; now: number }>(
    'INSERT INTO blocks (blocker_id, blocked_id, via_anonymous_post, created_at) VALUES (@blocker, @blocked, 0, @now)',
  );
  const insertForPost = sqlite.prepare<{ blocker: number; blocked: number; post: number; now: number }>(
    `INSERT INTO blocks (blocker_id, blocked_id, via_anonymous_post, post_id, created_at) VALUES (@blocker, @blocked, 1, @post, @now)
     ON CONFLICT DO NOTHING`,
  );
  const makeNamed = sqlite.prepare<[number]>('UPDATE blocks SET via_anonymous_post = 0 WHERE id = ?');
  const remove = sqlite.prepare<[number]>('DELETE FROM blocks WHERE id = ?');
  const countBoth = sqlite.prepare<{ a: number; b: number; delta: number }>(
    'UPDATE users SET block_count = block_count + @delta WHERE id IN (@a, @b)',
  );
  // A block of an anonymous post changes only what its maker's pages read, so only theirs counts it.
  const countOne = sqlite.prepare<{ a: number; delta: number }>('UPDATE users SET block_count = block_count + @delta WHERE id = @a');
  // What either made on the other's things stops notifying, and comes back when the block is lifted (counters.ts).
  const list = sqlite.prepare<[number], BlockRow & { viaAnonymousPost: number }>(`
    SELECT b.id AS blockId, u.username, u.profile_picture_key AS pictureKey, b.created_at AS createdAt,
      b.via_anonymous_post AS viaAnonymousPost
    FROM blocks b JOIN users u ON u.id = b.blocked_id
    WHERE b.blocker_id = ? AND u.deleted_at IS NULL
    ORDER BY b.created_at DESC, b.id DESC`);
  const own = sqlite.prepare<{ id: number; blocker: number }, { id: number; blockedId: number; postId: number | null; createdAt: number }>(
    'SELECT id, blocked_id AS blockedId, post_id AS postId, created_at AS createdAt FROM blocks WHERE id = @id AND blocker_id = @blocker',
  );
  const isRemote = sqlite.prepare<[number], number>('SELECT host IS NOT NULL FROM users WHERE id = ?').pluck();
  /** The Block (or its Undo) for the other's server, when they are on one and the blocker is ours. */
  const told = (act: FederatedBlock['act'], blocker: number, blocked: number, at: number): FederatedBlock[] =>
    isRemote.get(blocked) === 1 && isRemote.get(blocker) === 0 ? [{ act, blockerId: blocker, blockedId: blocked, at }] : [];

  const addNamed = (blocker: number, blocked: number): BlockFederation => {
    const found = existingNamed.get({ blocker, blocked });
    if (found) {
      // Blocked again by name: from now on they may be shown by name in the list.
      if (found.viaAnonymousPost === 1) makeNamed.run(found.id);
      return [];
    }
    counters.blockNotified(blocker, blocked, -1);
    const now = Date.now();
    insertNamed.run({ blocker, blocked, now });
    countBoth.run({ a: blocker, b: blocked, delta: 1 });
    // A follow either way goes, with its counters, and a waiting follow request either way (social's rows).
    return [...follows.endBetween(blocker, blocked), ...told('block', blocker, blocked, now)];
  };

  /** Lifts one of `blocker`'s blocks: null when they have no such block. */
  const lift = sqlite.transaction((blockId: number, blocker: number): BlockFederation | null => {
    live.assert(blocker);
    const row = own.get({ id: blockId, blocker });
    if (!row) return null;
    remove.run(row.id);
    if (row.postId !== null) {
      countOne.run({ a: blocker, delta: -1 });
      return [];
    }
    countBoth.run({ a: blocker, b: row.blockedId, delta: -1 });
    counters.blockNotified(blocker, row.blockedId, 1);
    return told('unblock', blocker, row.blockedId, row.createdAt);
  });

  const byName = sqlite.transaction((me: number, username: string, block: boolean): BlockFederation => {
    live.assert(me);
    const other = namedTarget(me, username);
    if (block) return addNamed(me, other);
    const row = existingNamed.get({ blocker: me, blocked: other });
    return row ? (lift(row.id, me) ?? []) : [];
  });
  const authorOf = sqlite.transaction((me: number, postId: number): BlockFederation => {
    live.assert(me);
    const post = posts.findVisible(postId, me);
    if (!post) throw notFound('This post does not exist.');
    if (post.userId === me) throw badRequest('This is your own post.');
    if (post.isAnonymous === 0) return addNamed(me, post.userId);
    // This post only: hiding the author's other anonymous posts would link them to this one.
    if (insertForPost.run({ blocker: me, blocked: post.userId, post: post.id, now: Date.now() }).changes === 1) {
      countOne.run({ a: me, delta: 1 });
    }
    return [];
  });

  /**
   * Someone on another server blocked (or unblocked) one of our people, by their `Block` (or its
   * `Undo`), as Mastodon takes one: a block by name between the two here, so they stop seeing each
   * other, with the follows between them ended (what their server must be told of those, as
   * Mastodon tells it). The same block again changes nothing.
   */
  const fromAnotherServer = sqlite.transaction((remote: number, local: number, block: boolean): BlockFederation => {
    if (isRemote.get(remote) !== 1 || isRemote.get(local) !== 0 || !live.exists(remote) || !live.exists(local)) return [];
    if (block) return addNamed(remote, local).filter((f) => f.act !== 'block' && f.act !== 'unblock');
    // Lifted as `lift` does, without its check of the blocker as a signed-in person of ours.
    const row = existingNamed.get({ blocker: remote, blocked: local });
    if (!row) return [];
    remove.run(row.id);
    countBoth.run({ a: remote, b: local, delta: -1 });
    counters.blockNotified(remote, local, 1);
    return [];
  });

  /** Someone the caller may block by name: they exist for the caller (see users-repository's publicProfile). */
  function namedTarget(me: number, username: string): number {
    const user = target.get(username);
    const hidden =
      user && (blockedMe.get({ blocker: user.id, blocked: me }) !== undefined || existingNamed.get({ blocker: me, blocked: user.id })?.viaAnonymousPost === 1);
    if (!user || hidden) throw notFound(`There is no user named "${username}".`);
    if (user.id === me) throw badRequest('You cannot block yourself.');
    return user.id;
  }

  return {
    /** Each answers what another server must be told once committed (federation/plugin.ts, deliver). */
    blockByName: (me: number, username: string) => byName.immediate(me, username, true),
    unblockByName: (me: number, username: string) => byName.immediate(me, username, false),
    /** Blocks the author of a post the caller can see; the answer never says who it is. */
    blockAuthorOf: (me: number, postId: number) => authorOf.immediate(me, postId),
    /** null when the caller has no block with this id. */
    unblock: (blockId: number, me: number) => lift.immediate(blockId, me),
    /** A remote person's Block or Undo of one against one of ours (federation/follow-activities.ts). */
    fromAnotherServer: (remoteId: number, localId: number, block: boolean) => fromAnotherServer.immediate(remoteId, localId, block),
    list(me: number): BlockRow[] {
      return list.all(me).map(({ viaAnonymousPost, ...row }) =>
        viaAnonymousPost === 1 ? { ...row, username: null, pictureKey: null } : row,
      );
    },
  };
}

export type BlocksRepository = ReturnType<typeof createBlocksRepository>;
