import type Database from 'better-sqlite3';
import { arrayRows } from '../db/rows.js';
import type { Keyset } from './paging.js';
import { postView, type CommentRow, type PostRow, type PostView } from './views.js';

/** First comments shown under each post of a page. */
export const FIRST_COMMENTS = 3;

/** The following feed walks the newest posts first for viewers following at least this many accounts… */
export const FOLLOWING_WALK_MIN = 50;
/** …looking back at most this many pages' worth of public posts. */
export const FOLLOWING_WINDOW = 10;

interface PageParams {
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

// The winners of a page are loaded with their author, counters and likedByUser
// (one probe of the likes primary key) in the same statement as the keyset.
const POST_COLUMNS = `p.id, p.user_id AS userId, p.caption, p.is_anonymous AS isAnonymous, p.media_key AS mediaKey,
  p.width, p.height, p.like_count AS likeCount, p.comment_count AS commentCount, p.created_at AS createdAt,
  u.username, u.profile_picture_key AS pictureKey,
  EXISTS (SELECT 1 FROM likes l WHERE l.post_id = p.id AND l.user_id = @viewer) AS liked`;

// Page statements do not filter on users.deleted_at: with sqlite_stat1 present
// that term makes SQLite build a Bloom filter over all users on every page
// (measured 1-2 ms instead of ~0.15 ms). No route soft-deletes a user; whatever
// does must also remove or hide their posts. Profiles of deleted users are 404.

// Keyset "before (ts, id)" in the shape that keeps SQLite on the index range
// (a row-value comparison can pick a far slower plan; see PERF-NOTES).
const BEFORE = (alias: string) =>
  `${alias}.created_at <= @ts AND (${alias}.created_at < @ts OR ${alias}.id < @id)`;

/**
 * Feed and profile pages. Each page costs one keyset statement (two for a following
 * page whose recent window falls short) plus at most one batched statement for the
 * first comments of all its posts, whatever the page size.
 */
export function createPostsRepository(sqlite: Database.Database) {
  const discover = arrayRows<PageParams, PostRow>(sqlite, `
    SELECT ${POST_COLUMNS}
    FROM posts p INDEXED BY posts_feed_idx
    JOIN users u ON u.id = p.user_id
    WHERE p.is_profile_picture = 0 AND ${BEFORE('p')}
    ORDER BY p.created_at DESC, p.id DESC
    LIMIT @limit`);

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
        WHERE is_profile_picture = 0 AND is_anonymous = 0 AND ${BEFORE('posts')}
        ORDER BY created_at DESC, id DESC
        LIMIT @scan
      ) w
      WHERE EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = @viewer AND f.followee_id = w.user_id)
      ORDER BY w.created_at DESC, w.id DESC
      LIMIT @limit
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
        ON p.user_id = f.followee_id AND p.is_profile_picture = 0 AND p.is_anonymous = 0
      WHERE f.follower_id = @viewer AND ${BEFORE('p')}
      ORDER BY p.created_at DESC, p.id DESC
      LIMIT @limit
    )
    SELECT ${POST_COLUMNS}
    FROM cand JOIN posts p ON p.id = cand.id JOIN users u ON u.id = p.user_id
    ORDER BY p.created_at DESC, p.id DESC`);

  // Someone else's profile: public posts only, so anonymous ones are never listed.
  const publicOfUser = arrayRows<PageParams & { owner: number }, PostRow>(sqlite, `
    WITH cand AS MATERIALIZED (
      SELECT id, created_at FROM posts INDEXED BY posts_user_feed_idx
      WHERE user_id = @owner AND is_profile_picture = 0 AND is_anonymous = 0 AND ${BEFORE('posts')}
      ORDER BY created_at DESC, id DESC
      LIMIT @limit
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
          WHERE user_id = @owner AND is_profile_picture = 0 AND is_anonymous = 0 AND ${BEFORE('posts')}
          ORDER BY created_at DESC, id DESC LIMIT @limit)
        UNION ALL
        SELECT id, created_at FROM (
          SELECT id, created_at FROM posts INDEXED BY posts_user_feed_idx
          WHERE user_id = @owner AND is_profile_picture = 0 AND is_anonymous = 1 AND ${BEFORE('posts')}
          ORDER BY created_at DESC, id DESC LIMIT @limit)
      )
      ORDER BY created_at DESC, id DESC
      LIMIT @limit
    )
    SELECT ${POST_COLUMNS}
    FROM cand JOIN posts p ON p.id = cand.id JOIN users u ON u.id = p.user_id
    ORDER BY p.created_at DESC, p.id DESC`);

  // The first comments of every post of a page in one statement: per post, at
  // most FIRST_COMMENTS entries read from comments_post_idx, however many it has.
  const firstComments = arrayRows<[string], CommentRow>(sqlite, `
    SELECT c.id, c.post_id AS postId, c.user_id AS userId, c.content, c.created_at AS createdAt, u.username
    FROM json_each(?) j
    JOIN comments c ON c.id IN (
      SELECT c2.id FROM comments c2 WHERE c2.post_id = j.value ORDER BY c2.created_at, c2.id LIMIT ${FIRST_COMMENTS})
    JOIN users u ON u.id = c.user_id
    ORDER BY c.created_at, c.id`);

  const visible = sqlite.prepare<[number], VisiblePost>(`
    SELECT p.id, p.user_id AS userId, p.is_anonymous AS isAnonymous
    FROM posts p JOIN users u ON u.id = p.user_id
    WHERE p.id = ? AND p.is_profile_picture = 0 AND u.deleted_at IS NULL`);

  /** Turns a page of rows into Posts, with the first comments fetched in one batch. */
  function toViews(rows: PostRow[], viewer: number): PostView[] {
    const withComments = rows.filter((r) => r.commentCount > 0).map((r) => r.id);
    const byPost = new Map<number, CommentRow[]>();
    if (withComments.length > 0) {
      for (const c of firstComments.all([JSON.stringify(withComments)])) {
        const list = byPost.get(c.postId);
        if (list) list.push(c);
        else byPost.set(c.postId, [c]);
      }
    }
    return rows.map((r) => postView(r, viewer, byPost.get(r.id) ?? []));
  }

  const page = (viewer: number, before: Keyset, limit: number): PageParams => ({
    viewer,
    ts: before.createdAt,
    id: before.id,
    limit,
  });

  return {
    discover: (viewer: number, before: Keyset, limit: number) => toViews(discover.all(page(viewer, before, limit)), viewer),
    /** `followingCount` is the viewer's (request.user's): it picks the plan, never the answer. */
    following(viewer: number, followingCount: number, before: Keyset, limit: number) {
      const params = page(viewer, before, limit);
      if (followingCount >= FOLLOWING_WALK_MIN) {
        const recent = followingRecent.all({ ...params, scan: limit * FOLLOWING_WINDOW });
        if (recent.length === limit) return toViews(recent, viewer);
      }
      return toViews(following.all(params), viewer);
    },
    /** All of the owner's posts; only for the owner themself. */
    ownPosts: (owner: number, before: Keyset, limit: number) =>
      toViews(allOfUser.all({ ...page(owner, before, limit), owner }), owner),
    /** What anyone sees on a profile: never the anonymous posts. */
    publicPosts: (owner: number, viewer: number, before: Keyset, limit: number) =>
      toViews(publicOfUser.all({ ...page(viewer, before, limit), owner }), viewer),
    findVisible: (postId: number) => visible.get(postId),
  };
}

export type PostsRepository = ReturnType<typeof createPostsRepository>;
