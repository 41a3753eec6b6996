import type Database from 'better-sqlite3';
import { arrayRows, limitBy } from '../kernel/db/rows.js';
import { LruMap } from '../kernel/lru.js';
import { NEWEST, type Keyset } from '../kernel/paging.js';
import type { CommentRow, PhotoRow, PostPage, PostRow } from '../kernel/views.js';

/** First comments shown under each post of a page. */
export const FIRST_COMMENTS = 3;

/** The following feed walks the newest posts first for viewers following at least this many accounts… */
export const FOLLOWING_WALK_MIN = 50;
/** …looking back at most this many pages' worth of public posts. */
export const FOLLOWING_WINDOW = 10;
/** First pages of the following feed kept per connection (one per viewer and page size), least recently read dropped first. */
export const FOLLOWING_CACHE_MAX = 10_000;
/** Posts whose first comments are kept per connection, least recently shown dropped first. */
export const FIRST_COMMENTS_CACHE_MAX = 10_000;

/** Who reads a page: their blocks pick the plan (users.block_count, kept with every block and unblock). */
export interface Viewer {
  id: number;
  blockCount: number;
  /**
   * users.blocks_version as of the request (AuthUser): the viewer's block sets read for it are
   * kept per connection until it moves. Without it they are read for the page.
   */
  blocksVersion?: number;
}

/** The block sets of a viewer with blocks: read together, kept while users.blocks_version stands. */
interface BlockSets {
  version: number | undefined;
  /** Everyone on the other side of a block by name, either way. */
  named: number[];
  namedSet: Set<number>;
  /** The anonymous posts the viewer blocked the author of. */
  posts: Set<number>;
  /** The servers the viewer muted (server_mutes, as users.host spells them): their people's posts and comments are left out. */
  hosts: Set<string>;
}

/** Viewers' block sets kept per connection (a read worker's, or the request thread's). */
const BLOCK_SETS_MAX = 2_000;
/** Authors' hosts kept per connection for viewers who muted a server (a user's host never changes). */
const HOSTS_MAX = 20_000;

/**
 * No block by name either way between `@viewer` and the user in `column` (blocks_blocked_idx).
 * Blocks of an anonymous post's author (blocks.post_id set) never hide anything named: they
 * would name the author (docs/api.md, "Blocks and anonymity").
 */
export const NOT_BLOCKED_BY_NAME = (column: string, viewer = '@viewer') => `NOT EXISTS (SELECT 1 FROM blocks b
      WHERE b.blocked_id = ${column} AND b.blocker_id = ${viewer} AND b.post_id IS NULL)
      AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocked_id = ${viewer} AND b.blocker_id = ${column} AND b.post_id IS NULL)`;

/**
 * Whether `@viewer` may see a post aliased `p`: a named post unless a block by name stands
 * between them; an anonymous post unless the viewer blocked its author through it.
 * Anonymous posts are never hidden by a block by name, either way: which anonymous posts
 * vanish would tell whose they are.
 */
const POST_SEEN = `CASE WHEN p.is_anonymous = 1
      THEN NOT EXISTS (SELECT 1 FROM blocks b WHERE b.blocker_id = @viewer AND b.post_id = p.id)
      ELSE ${NOT_BLOCKED_BY_NAME('p.user_id')} END`;

/**
 * Whether `@viewer` may see a post aliased `p` by an author aliased `u` as far as private
 * accounts go (docs/api.md, "Private accounts"): anonymous posts always (which ones vanished
 * would say whose they are), named ones of a public account, and a private account's named
 * posts for the account itself and its followers (one probe of the follows primary key, made
 * only for a private author's named post).
 */
export const PRIVATE_SEEN = `(p.is_anonymous = 1 OR u.is_private = 0 OR p.user_id = @viewer
      OR EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = @viewer AND f.followee_id = p.user_id))`;

/**
 * PRIVATE_SEEN for lists of everyone's posts (Discover, tag pages): a limited person's named posts
 * (users.limited: their server is limited by the operator, Mastodon's "silence") are listed only
 * to their followers, as a private account's are. It reads the author's row the page already
 * joins, so the plan is Discover's as before; the follows probe runs only for such an author.
 * Their profile and their posts by id stay reachable (PRIVATE_SEEN), as Mastodon's do.
 */
export const LISTED_SEEN = `(p.is_anonymous = 1 OR (u.is_private = 0 AND u.limited = 0) OR p.user_id = @viewer
      OR EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = @viewer AND f.followee_id = p.user_id))`;

export interface PageParams {
  viewer: number;
  ts: number;
  id: number;
  limit: number;
}

/** A post that may be liked or commented on: visible (not a profile picture) and its author not deleted. */
export interface VisiblePost {
  id: number;
  userId: number;
  isAnonymous: number;
}

/**
 * The post `@viewer` may see by id, or nothing: listable, not hidden by a suspension, its author
 * live, and neither a block nor a private account between them. Every read and write by a post's
 * id answers 404 when this finds nothing, exactly as for an id that never existed (issue 45), so
 * no answer tells that a post the caller cannot see is there.
 */
export const prepareVisiblePost = (sqlite: Database.Database) =>
  sqlite.prepare<{ post: number; viewer: number }, VisiblePost>(`
    SELECT p.id, p.user_id AS userId, p.is_anonymous AS isAnonymous
    FROM posts p JOIN users u ON u.id = p.user_id
    WHERE p.id = @post AND p.is_profile_picture = 0 AND p.hidden = 0 AND u.deleted_at IS NULL
      AND ${POST_SEEN} AND ${PRIVATE_SEEN}`);

/**
 * A sensitive post's warning and blurred image, and whether `@viewer` gets the photo itself
 * (PostRow.sensitivity, docs/api.md "Content warnings"): the viewer's setting is read (one probe of
 * the users primary key) only for someone else's sensitive post. One column, null for the rest:
 * as four columns (flag, warning, key, viewer's flag) every page paid for them, sensitive posts or
 * not (in-process runs of Discover on the small bench set: roughly 150 µs a page before, 180-250 with four).
 */
export const SENSITIVITY = `CASE WHEN p.sensitive = 0 THEN NULL
  ELSE (CASE WHEN p.user_id = @viewer THEN 1 ELSE coalesce((SELECT v.show_sensitive FROM users v WHERE v.id = @viewer), 0) END)
    || json_array(p.content_warning, p.blur_key) END AS sensitivity`;

// The winners of a page are loaded with their author, counters and likedByUser
// (one probe of the likes primary key) in the same statement as the keyset.
export const POST_COLUMNS = `p.id, p.user_id AS userId, p.caption, p.alt_text AS altText, p.is_anonymous AS isAnonymous, p.media_key AS mediaKey,
  p.width, p.height, p.medium_width AS mediumWidth, p.like_count AS likeCount, p.comment_count AS commentCount, p.created_at AS createdAt,
  p.edited_at AS editedAt, p.photo_count AS photoCount, u.username, u.profile_picture_key AS pictureKey, p.mentions,
  EXISTS (SELECT 1 FROM likes l WHERE l.post_id = p.id AND l.user_id = @viewer) AS liked,
  ${SENSITIVITY}`;

// Page statements do not filter on users.deleted_at: with sqlite_stat1 present
// that term makes SQLite build a Bloom filter over all users on every page
// (measured 1-2 ms instead of ~0.15 ms). Removing an account deletes its posts,
// likes, comments and follows in the transaction that marks it deleted
// (account-removal-repository.ts). Profiles of deleted users are 404.

// Keyset "before (ts, id)" in the shape that keeps SQLite on the index range
// (a row-value comparison `(created_at, id) < (?, ?)` joined with users was
// measured at ~100 ms near the top of the feed, against ~95 µs for this form).
export const BEFORE = (alias: string) =>
  `${alias}.created_at <= @ts AND (${alias}.created_at < @ts OR ${alias}.id < @id)`;

/**
 * Feed and profile pages, each read in one transaction (one snapshot). Each page costs
 * one keyset statement (two for a following page whose recent window falls short),
 * a read of comments_epoch when a post on it has comments, and at most one batched
 * statement for the first comments of the posts whose comments are not kept, whatever
 * the page size. The following feed's first page adds a read of feed_epoch when it
 * is not cached, and a cached one is a single statement for the posts.
 */
export function createPostsRepository(sqlite: Database.Database) {
  // Posts of suspended authors are hidden (posts.hidden), so they drop out of posts_feed_idx.
  const discover = arrayRows<PageParams, PostRow>(sqlite, `
    SELECT ${POST_COLUMNS}
    FROM posts p INDEXED BY posts_feed_idx
    JOIN users u ON u.id = p.user_id
    WHERE p.is_profile_picture = 0 AND p.hidden = 0 AND ${BEFORE('p')} AND ${LISTED_SEEN}
    ORDER BY p.created_at DESC, p.id DESC
    ${limitBy('@limit')}`);

  // Everyone on the other side of a block by name with @viewer, either way (blocks_blocker_post_unique, blocks_blocked_idx).
  const blockedBothWays = sqlite.prepare<{ viewer: number }, number>(`
    SELECT blocked_id FROM blocks WHERE blocker_id = @viewer AND post_id IS NULL
    UNION SELECT blocker_id FROM blocks WHERE blocked_id = @viewer AND post_id IS NULL`).pluck();
  // The anonymous posts @viewer blocked the author of (blocks_blocker_post_unique).
  const blockedPosts = sqlite.prepare<{ viewer: number }, number>(
    'SELECT post_id FROM blocks WHERE blocker_id = @viewer AND post_id IS NOT NULL',
  ).pluck();
  // The servers @viewer muted (server_mutes' primary key).
  const mutedHosts = sqlite.prepare<{ viewer: number }, string>('SELECT host FROM server_mutes WHERE user_id = @viewer').pluck();
  const blockSets = new LruMap<number, BlockSets>(BLOCK_SETS_MAX);
  // A person's host (null: one of ours), by the users primary key, read only for viewers who muted a
  // server: a join on users.host in the page statements would change every viewer's plan.
  const hostById = sqlite.prepare<[number], string | null>('SELECT host FROM users WHERE id = ?').pluck();
  const hosts = new LruMap<number, string | null>(HOSTS_MAX);
  const hostOf = (user: number): string | null => {
    let host = hosts.get(user);
    if (host === undefined) {
      host = hostById.get(user) ?? null;
      hosts.set(user, host);
    }
    return host;
  };
  /** Whether `user` is a person of a server the viewer muted. */
  const muted = (sets: BlockSets, user: number): boolean => {
    if (sets.hosts.size === 0) return false;
    const host = hostOf(user);
    return host !== null && sets.hosts.has(host);
  };

  /** The viewer's block sets: kept ones while users.blocks_version has not moved, else read now (in the page's snapshot). */
  function blocksOf(viewer: Viewer): BlockSets {
    const kept = viewer.blocksVersion === undefined ? undefined : blockSets.get(viewer.id);
    if (kept && kept.version === viewer.blocksVersion) return kept;
    const named = blockedBothWays.all({ viewer: viewer.id });
    const sets = {
      version: viewer.blocksVersion,
      named,
      namedSet: new Set(named),
      posts: new Set(blockedPosts.all({ viewer: viewer.id })),
      hosts: new Set(mutedHosts.all({ viewer: viewer.id })),
    };
    if (viewer.blocksVersion !== undefined) blockSets.set(viewer.id, sets);
    return sets;
  }

  /**
   * Discover for a viewer with blocks (users.block_count > 0): the statement everyone reads,
   * its rows checked against the viewer's kept block sets, and read on from the last row
   * for as many as a block left out (rarely: 20 blocks among 100 000 people). A block by name
   * hides named posts only: anonymous posts stay, or which ones vanished would say whose they
   * are (docs/api.md); an anonymous post goes when the viewer blocked its author through it.
   * (Read in SQL with the sets as json_each indexes, a page cost 120 µs against 54 µs without
   * blocks at the reference scale; docs/performance.md.)
   */
  function discoverBlocking(viewer: Viewer, before: Keyset, limit: number): PostRow[] {
    return readBlocking(viewer, (params) => discover.all(params), page(viewer.id, before, limit), limit);
  }

  /** A newest-first list of posts (`read`: a keyset statement) for a viewer with blocks, as Discover's above. */
  function readBlocking<P extends PageParams>(viewer: Viewer, read: (params: P) => PostRow[], first: P, limit: number): PostRow[] {
    const sets = blocksOf(viewer);
    const rows: PostRow[] = [];
    let params = first;
    for (;;) {
      const batch = read(params);
      for (const r of batch) {
        if (rows.length === limit) break;
        if (sets.posts.has(r.id) || (r.isAnonymous !== 1 && (sets.namedSet.has(r.userId) || muted(sets, r.userId)))) continue;
        rows.push(r);
      }
      if (rows.length === limit || batch.length < params.limit) return rows;
      const last = batch[batch.length - 1]!;
      // What is still missing, read in growing steps so a long run of blocked posts costs few statements.
      params = { ...params, ts: last.createdAt, id: last.id, limit: Math.min(Math.max(params.limit * 2, limit - rows.length), 1000) };
    }
  }

  // Following, first try: walk the newest public posts (covering posts_public_feed_idx)
  // and keep those whose author the viewer follows, looking at most @scan posts back.
  // Cheap when the follows write a good share of what is posted: the bench reader
  // (200 follows, 13% of new posts at the reference scale) costs ~115 µs instead
  // of ~230 µs. Only for viewers following FOLLOWING_WALK_MIN accounts or more: for
  // people who follow few (where the walk would mostly miss) the merge below is cheap.
  // If the window holds fewer than a page, the answer is not complete: merge instead.
  const followingRecent = arrayRows<PageParams & { scan: number }, PostRow>(sqlite, `
    WITH cand AS MATERIALIZED (
      SELECT w.id, w.created_at FROM (
        SELECT id, user_id, created_at FROM posts INDEXED BY posts_public_feed_idx
        WHERE is_profile_picture = 0 AND is_anonymous = 0 AND hidden = 0 AND ${BEFORE('posts')}
        ORDER BY created_at DESC, id DESC
        ${limitBy('@scan')}
      ) w
      WHERE EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = @viewer AND f.followee_id = w.user_id)
      ORDER BY w.created_at DESC, w.id DESC
      ${limitBy('@limit')}
    )
    SELECT ${POST_COLUMNS}
    FROM cand JOIN posts p ON p.id = cand.id JOIN users u ON u.id = p.user_id
    ORDER BY p.created_at DESC, p.id DESC`);

  // Following, the general case: candidates from the covering posts_user_feed_idx of
  // each followee (every post of theirs before the cursor); only the winners are loaded.
  const following = arrayRows<PageParams, PostRow>(sqlite, `
    WITH cand AS MATERIALIZED (
      SELECT p.id, p.created_at
      FROM follows f
      JOIN posts p INDEXED BY posts_user_feed_idx
        ON p.user_id = f.followee_id AND p.is_profile_picture = 0 AND p.is_anonymous = 0 AND p.hidden = 0
      WHERE f.follower_id = @viewer AND ${BEFORE('p')}
      ORDER BY p.created_at DESC, p.id DESC
      ${limitBy('@limit')}
    )
    SELECT ${POST_COLUMNS}
    FROM cand JOIN posts p ON p.id = cand.id JOIN users u ON u.id = p.user_id
    ORDER BY p.created_at DESC, p.id DESC`);

  // Which posts a following feed can list moves only with feed_epoch (migration 0003).
  const feedEpoch = sqlite.prepare<[], number>('SELECT n FROM feed_epoch WHERE id = 1').pluck();

  // A cached first page: the same posts, with everything shown about them (counters,
  // likedByUser, names, pictures) read now, and no rows at all if the epoch has moved
  // since (one statement, one snapshot).
  const cachedPage = arrayRows<{ ids: string; viewer: number; epoch: number }, PostRow>(sqlite, `
    SELECT ${POST_COLUMNS}
    FROM json_each(@ids) j JOIN posts p ON p.id = j.value JOIN users u ON u.id = p.user_id
    WHERE (SELECT n FROM feed_epoch WHERE id = 1) = @epoch
    ORDER BY p.created_at DESC, p.id DESC`);

  /** `${viewer}/${limit}` → the post ids of that first page and the epoch they were read at. */
  const firstPages = new LruMap<string, { ids: string; count: number; epoch: number }>(FOLLOWING_CACHE_MAX);

  // Someone else's profile: public posts only, so anonymous ones are never listed.
  const publicOfUser = arrayRows<PageParams & { owner: number }, PostRow>(sqlite, `
    WITH cand AS MATERIALIZED (
      SELECT id, created_at FROM posts INDEXED BY posts_user_feed_idx
      WHERE user_id = @owner AND is_profile_picture = 0 AND is_anonymous = 0 AND hidden = 0 AND ${BEFORE('posts')}
      ORDER BY created_at DESC, id DESC
      ${limitBy('@limit')}
    )
    SELECT ${POST_COLUMNS}
    FROM cand JOIN posts p ON p.id = cand.id JOIN users u ON u.id = p.user_id
    ORDER BY p.created_at DESC, p.id DESC`);

  // The caller's own posts, anonymous ones included: two index ranges merged, each at most a page.
  const allOfUser = arrayRows<PageParams & { owner: number }, PostRow>(sqlite, `
    WITH cand AS MATERIALIZED (
      SELECT id, created_at FROM (
        SELECT id, created_at FROM (
          SELECT id, created_at FROM posts INDEXED BY posts_user_feed_idx
          WHERE user_id = @owner AND is_profile_picture = 0 AND is_anonymous = 0 AND hidden = 0 AND ${BEFORE('posts')}
          ORDER BY created_at DESC, id DESC ${limitBy('@limit')})
        UNION ALL
        SELECT id, created_at FROM (
          SELECT id, created_at FROM posts INDEXED BY posts_user_feed_idx
          WHERE user_id = @owner AND is_profile_picture = 0 AND is_anonymous = 1 AND hidden = 0 AND ${BEFORE('posts')}
          ORDER BY created_at DESC, id DESC ${limitBy('@limit')})
      )
      ORDER BY created_at DESC, id DESC
      ${limitBy('@limit')}
    )
    SELECT ${POST_COLUMNS}
    FROM cand JOIN posts p ON p.id = cand.id JOIN users u ON u.id = p.user_id
    ORDER BY p.created_at DESC, p.id DESC`);

  // The first comments of every post of a page in one statement: per post, at
  // most FIRST_COMMENTS entries read from comments_post_idx, however many it has.
  // Comments of suspended authors are hidden (comments.hidden) and left out.
  const firstComments = arrayRows<[string], CommentRow>(sqlite, `
    SELECT c.id, c.post_id AS postId, c.user_id AS userId, c.content, c.created_at AS createdAt, u.username, c.mentions
    FROM json_each(?) j
    JOIN comments c ON c.id IN (
      SELECT c2.id FROM comments c2 WHERE c2.post_id = j.value AND c2.hidden = 0
      ORDER BY c2.created_at, c2.id LIMIT ${FIRST_COMMENTS})
    JOIN users u ON u.id = c.user_id
    ORDER BY c.created_at, c.id`);

  // For a viewer with blocks, the posts whose first comments include someone on the other
  // side of a block by name, or of a server they muted: the first ones they may see, never kept (they are theirs alone).
  // An anonymous post's author commenting on it is shown without a name, so stays: hiding it
  // would name them.
  const firstCommentsBlocking = arrayRows<{ ids: string; blocked: string; hosts: string }, CommentRow>(sqlite, `
    SELECT c.id, c.post_id AS postId, c.user_id AS userId, c.content, c.created_at AS createdAt, u.username, c.mentions
    FROM json_each(@ids) j
    JOIN comments c ON c.id IN (
      SELECT c2.id FROM comments c2 WHERE c2.post_id = j.value AND c2.hidden = 0
        AND ((c2.user_id NOT IN (SELECT value FROM json_each(@blocked))
            AND NOT EXISTS (SELECT 1 FROM users h WHERE h.id = c2.user_id AND h.host IN (SELECT value FROM json_each(@hosts))))
          OR c2.user_id = (SELECT a.user_id FROM posts a WHERE a.id = j.value AND a.is_anonymous = 1))
      ORDER BY c2.created_at, c2.id LIMIT ${FIRST_COMMENTS})
    JOIN users u ON u.id = c.user_id
    ORDER BY c.created_at, c.id`);

  // The other photos of a page's albums in one statement, one primary-key range per album
  // (post_photos is WITHOUT ROWID, migration 0022). Pages without albums never run it.
  const albumPhotos = arrayRows<[string], PhotoRow>(sqlite, `
    SELECT f.post_id AS postId, f.position, f.media_key AS mediaKey, f.width, f.height,
           f.medium_width AS mediumWidth, f.alt_text AS altText
    FROM json_each(?) j JOIN post_photos f ON f.post_id = j.value
    ORDER BY f.post_id, f.position`);

  /** Album id → its photos after the first; undefined when the page holds no album. */
  function albumsOf(rows: PostRow[]): Map<number, PhotoRow[]> | undefined {
    let ids: number[] | undefined;
    for (const r of rows) if (r.photoCount > 1) (ids ??= []).push(r.id);
    if (!ids) return undefined;
    const byPost = new Map<number, PhotoRow[]>();
    for (const f of albumPhotos.all([JSON.stringify(ids)])) {
      const list = byPost.get(f.postId);
      if (list) list.push(f);
      else byPost.set(f.postId, [f]);
    }
    return byPost;
  }

  // A post's first comments move only with its comment_count or comments_epoch (migration 0004).
  const commentsEpoch = sqlite.prepare<[], number>('SELECT n FROM comments_epoch WHERE id = 1').pluck();

  /** Post id → its first comments and the comment_count and comments_epoch they were read at. */
  const keptComments = new LruMap<number, { count: number; epoch: number; rows: CommentRow[] }>(FIRST_COMMENTS_CACHE_MAX);

  const visible = prepareVisiblePost(sqlite);
  // The author blocked the viewer through one of the viewer's anonymous posts: the viewer
  // still sees their named posts (hiding them would tell the author nothing, but the viewer
  // would learn who blocked them only by what vanished), and may no longer like, comment or follow.
  const namedEitherWay = sqlite.prepare<{ viewer: number; other: number }, number>(
    `SELECT 1 WHERE NOT (${NOT_BLOCKED_BY_NAME('@other')})`,
  ).pluck();
  const refusedByAuthor = sqlite.prepare<{ author: number; viewer: number }, number>(
    'SELECT 1 FROM blocks WHERE blocked_id = @viewer AND blocker_id = @author AND post_id IS NOT NULL LIMIT 1',
  ).pluck();

  /**
   * A page of rows with the first comments of its posts: kept ones while their post's
   * comment_count and comments_epoch have not moved, the others fetched in one batch.
   * Runs in the page's transaction, so the counts, the epoch and the comments are one snapshot.
   */
  function withComments(rows: PostRow[], viewer: Viewer): PostPage {
    const byPost = new Map<number, CommentRow[]>();
    const missing: PostRow[] = [];
    let epoch: number | undefined;
    for (const r of rows) {
      if (r.commentCount === 0) continue;
      epoch ??= commentsEpoch.get();
      const kept = keptComments.get(r.id);
      if (kept && kept.count === r.commentCount && kept.epoch === epoch) byPost.set(r.id, kept.rows);
      else missing.push(r);
    }
    if (missing.length > 0) {
      for (const c of firstComments.all([JSON.stringify(missing.map((r) => r.id))])) {
        const list = byPost.get(c.postId);
        if (list) list.push(c);
        else byPost.set(c.postId, [c]);
      }
      // No epoch row (a database edited by hand): answer without keeping anything.
      if (epoch !== undefined) {
        for (const r of missing) keptComments.set(r.id, { count: r.commentCount, epoch, rows: byPost.get(r.id) ?? [] });
      }
    }
    if (viewer.blockCount > 0 && byPost.size > 0) withoutBlocked(byPost, rows, blocksOf(viewer));
    return { rows, comments: byPost, photos: albumsOf(rows) };
  }

  /**
   * The first comments everyone sees are the viewer's too unless one of them is by
   * someone on the other side of a block by name (and shown with their name: an anonymous
   * post's author commenting on it is not): only those posts' are read again, without them.
   */
  function withoutBlocked(byPost: Map<number, CommentRow[]>, rows: PostRow[], sets: BlockSets) {
    if (sets.named.length === 0 && sets.hosts.size === 0) return;
    const hidden = sets.namedSet;
    const anonymousAuthor = new Map<number, number>();
    for (const r of rows) if (r.isAnonymous === 1) anonymousAuthor.set(r.id, r.userId);
    const again: number[] = [];
    for (const [postId, list] of byPost) {
      if (list.some((c) => (hidden.has(c.userId) || muted(sets, c.userId)) && anonymousAuthor.get(postId) !== c.userId)) again.push(postId);
    }
    if (again.length === 0) return;
    // New lists: the kept ones are shared by every viewer.
    for (const postId of again) byPost.set(postId, []);
    const blocked = { ids: JSON.stringify(again), blocked: JSON.stringify(sets.named), hosts: JSON.stringify([...sets.hosts]) };
    for (const c of firstCommentsBlocking.all(blocked)) byPost.get(c.postId)!.push(c);
  }

  const page = (viewer: number, before: Keyset, limit: number): PageParams => ({
    viewer,
    ts: before.createdAt,
    id: before.id,
    limit,
  });

  // One read transaction per page: one snapshot for the page, the epochs and the comments,
  // and one lock of the WAL instead of one per statement.
  const withCommentsFor = (rows: PostRow[], viewer: Viewer) => withComments(rows, viewer);
  const read = <A extends unknown[], R>(fn: (...args: A) => R) => sqlite.transaction(fn) as unknown as (...args: A) => R;

  return {
    discover: read((viewer: Viewer, before: Keyset, limit: number) => {
      if (viewer.blockCount === 0) return withComments(discover.all(page(viewer.id, before, limit)), viewer);
      return withComments(discoverBlocking(viewer, before, limit), viewer);
    }),
    /** `followingCount` is the viewer's (request.user's): it picks the plan, never the answer. */
    // Blocking removes follows both ways and forbids new ones, so these pages need no block check.
    // Muting a server keeps follows: for a viewer who muted one, the posts of its people are left
    // out as Discover leaves out the blocked (read on from the last row), and no first page is kept.
    following: read((viewerUser: Viewer, followingCount: number, before: Keyset, limit: number) => {
      const viewer = viewerUser.id;
      const withComments = (rows: PostRow[]) => withCommentsFor(rows, viewerUser);
      const params = page(viewer, before, limit);
      // The walk of the newest posts when it fills the page, else the merge: each a complete answer from `p`.
      const rowsFrom = (p: PageParams) => {
        if (followingCount >= FOLLOWING_WALK_MIN) {
          const recent = followingRecent.all({ ...p, scan: p.limit * FOLLOWING_WINDOW });
          if (recent.length === p.limit) return recent;
        }
        return following.all(p);
      };
      if (viewerUser.blockCount > 0 && blocksOf(viewerUser).hosts.size > 0) {
        return withComments(readBlocking(viewerUser, rowsFrom, params, limit));
      }
      const rowsNow = () => rowsFrom(params);
      if (before.createdAt !== NEWEST.createdAt || before.id !== NEWEST.id) return withComments(rowsNow());

      // The first page, what a client reloads: which posts it lists is cached until feed_epoch moves.
      const key = `${viewer}/${limit}`;
      const hit = firstPages.get(key);
      if (hit) {
        const rows = cachedPage.all({ ids: hit.ids, viewer, epoch: hit.epoch });
        if (rows.length === hit.count) return withComments(rows);
        firstPages.delete(key);
      }
      // The epoch is read before the page: a write between the two leaves the entry older than its page, never newer.
      const epoch = feedEpoch.get();
      const rows = rowsNow();
      // No epoch row (a database edited by hand): answer without caching.
      if (rows.length > 0 && epoch !== undefined) firstPages.set(key, { ids: JSON.stringify(rows.map((r) => r.id)), count: rows.length, epoch });
      return withComments(rows);
    }),
    /** All of the owner's posts; only for the owner themself. */
    ownPosts: read((owner: Viewer, before: Keyset, limit: number) =>
      withComments(allOfUser.all({ ...page(owner.id, before, limit), owner: owner.id }), owner)),
    /** What anyone sees on a profile: never the anonymous posts. */
    publicPosts: read((owner: number, viewer: Viewer, before: Keyset, limit: number) =>
      withComments(publicOfUser.all({ ...page(viewer.id, before, limit), owner }), viewer)),
    /**
     * A page of another list of posts read like Discover (hashtags/'s tag pages): `read`, a keyset
     * statement over POST_COLUMNS that leaves out hidden posts and applies LISTED_SEEN, run with
     * the page's parameters; blocks left out as on Discover, then the first comments and albums,
     * in one snapshot.
     */
    listed: read((viewer: Viewer, list: (params: PageParams) => PostRow[], before: Keyset, limit: number) => {
      const params = page(viewer.id, before, limit);
      const rows = viewer.blockCount === 0 ? list(params) : readBlocking(viewer, list, params, limit);
      return withComments(rows, viewer);
    }),
    /** A post `viewer` may see: listable, not hidden, and not hidden from them by a block (POST_SEEN). */
    findVisible: (postId: number, viewer: number) => visible.get({ post: postId, viewer }),
    /**
     * Whether `viewer` may not like or comment on `post` although they see it: a named post
     * whose author blocked them through one of their anonymous posts. Anonymous posts take
     * likes and comments from everyone who sees them: a refusal would say whose they are.
     */
    refusesInteraction: (post: VisiblePost, viewer: number) =>
      post.isAnonymous === 0 && post.userId !== viewer && refusedByAuthor.get({ author: post.userId, viewer }) !== undefined,
    /** Whether a block by name stands between the two, either way. */
    blockedByNameEitherWay: (a: number, b: number) => namedEitherWay.get({ viewer: a, other: b }) !== undefined,
  };
}

export type PostsRepository = ReturnType<typeof createPostsRepository>;
