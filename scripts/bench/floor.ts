import Database from 'better-sqlite3';
import { createReadTasks } from '../../server/src/feeds/read-tasks.js';
import { createTagPages } from '../../server/src/hashtags/hashtags-repository.js';
import { limitBy } from '../../server/src/kernel/db/rows.js';
import { createPostsRepository } from '../../server/src/posts/posts-repository.js';

// The database floor: a feed page's SQL run directly on better-sqlite3, no HTTP.
// These reference statements are the plan measured fastest (keyset on
// posts_feed_idx, counters from columns, likedByUser as one primary-key probe,
// first comments in one batched statement). The page size is bound in the form that
// does not make SQLite prepare the statement again on every call (limitBy).

const COLUMNS = `p.id, p.user_id, p.caption, p.is_anonymous, p.media_key, p.width, p.height, p.like_count, p.comment_count,
  p.created_at, u.username, u.profile_picture_key,
  EXISTS (SELECT 1 FROM likes l WHERE l.post_id = p.id AND l.user_id = @viewer) AS liked`;
const BEFORE = `p.created_at <= @ts AND (p.created_at < @ts OR p.id < @id)`;

// No `u.deleted_at IS NULL` here: with it (and sqlite_stat1) SQLite builds a Bloom
// filter over every user for each page, ~6.4 ms CPU at 100 000 users instead of ~0.2 ms.
const DISCOVER = `SELECT ${COLUMNS}
  FROM posts p INDEXED BY posts_feed_idx JOIN users u ON u.id = p.user_id
  WHERE p.is_profile_picture = 0 AND p.hidden = 0 AND ${BEFORE}
  ORDER BY p.created_at DESC, p.id DESC ${limitBy('@limit')}`;

const FOLLOWING = `WITH cand AS MATERIALIZED (
    SELECT p.id FROM follows f
    JOIN posts p INDEXED BY posts_user_feed_idx
      ON p.user_id = f.followee_id AND p.is_profile_picture = 0 AND p.is_anonymous = 0 AND p.hidden = 0
    WHERE f.follower_id = @viewer AND ${BEFORE}
    ORDER BY p.created_at DESC, p.id DESC ${limitBy('@limit')})
  SELECT ${COLUMNS} FROM cand JOIN posts p ON p.id = cand.id JOIN users u ON u.id = p.user_id
  ORDER BY p.created_at DESC, p.id DESC`;

const FIRST_COMMENTS = `SELECT c.id, c.post_id, c.user_id, c.content, c.created_at, u.username
  FROM json_each(?) j
  JOIN comments c ON c.id IN (SELECT c2.id FROM comments c2 WHERE c2.post_id = j.value ORDER BY c2.created_at, c2.id LIMIT 3)
  JOIN users u ON u.id = c.user_id
  ORDER BY c.created_at, c.id`;

const SEARCH = `SELECT username, profile_picture_key FROM users
  WHERE username >= @lo COLLATE NOCASE AND username < @hi COLLATE NOCASE AND deleted_at IS NULL
  ORDER BY username COLLATE NOCASE LIMIT 50`;

export interface FloorResult {
  /** CPU µs per call, median of batches. */
  discoverPage: number;
  discoverWithComments: number;
  followingPage: number;
  followingWithComments: number;
  searchPrefix: number;
  /** The server's own read tasks (the repository's SQL and the page's JSON bytes, as the feed routes run them). */
  repoDiscover?: number;
  repoFollowing?: number;
  /** The following feed's page computed every time (a cursor), where the first page may be cached. */
  repoFollowingComputed?: number;
  /**
   * What the reader's blocks cost a page: the read tasks for the reader (who has blocks) and
   * for the same reader asked as a viewer without blocks (the plan everyone else takes), timed
   * in alternating batches so both see the same machine. Absent when the reader has no blocks.
   */
  blocksCost?: { discover: [withBlocks: number, without: number]; following: [withBlocks: number, without: number]; blocks: number };
  plans: Record<string, string[]>;
}

/**
 * CPU time (user + system) of this process per call, median of batches: on a
 * machine shared with other work, wall time would measure the neighbours too.
 */
function time(fn: () => unknown, batches = 9, perBatch = 200): number {
  for (let i = 0; i < perBatch; i++) fn();
  const results: number[] = [];
  for (let b = 0; b < batches; b++) {
    const t = process.cpuUsage();
    for (let i = 0; i < perBatch; i++) fn();
    const d = process.cpuUsage(t);
    results.push((d.user + d.system) / perBatch);
  }
  results.sort((a, b) => a - b);
  return results[Math.floor(results.length / 2)]!;
}

/** Two functions timed in alternating batches (CPU µs per call, the median of each's batches). */
function timePair(a: () => unknown, b: () => unknown, batches = 15, perBatch = 200): [number, number] {
  for (let i = 0; i < perBatch; i++) {
    a();
    b();
  }
  const ra: number[] = [];
  const rb: number[] = [];
  for (let i = 0; i < batches; i++) {
    for (const [fn, out] of (i % 2 === 0 ? [[a, ra], [b, rb]] : [[b, rb], [a, ra]]) as Array<[() => unknown, number[]]>) {
      const t = process.cpuUsage();
      for (let j = 0; j < perBatch; j++) fn();
      const d = process.cpuUsage(t);
      out.push((d.user + d.system) / perBatch);
    }
  }
  const mid = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  return [mid(ra), mid(rb)];
}

function plan(db: Database.Database, sql: string, params: unknown): string[] {
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params as object) as { detail: string }[]).map((r) => r.detail);
}

export async function measureFloor(dbFile: string, viewer: number, searchPrefix: string): Promise<FloorResult> {
  const db = new Database(dbFile, { readonly: true });
  db.pragma('cache_size = -65536');
  try {
    const page = { viewer, ts: Number.MAX_SAFE_INTEGER, id: Number.MAX_SAFE_INTEGER, limit: 20 };
    const discover = db.prepare(DISCOVER);
    const following = db.prepare(FOLLOWING);
    const comments = db.prepare(FIRST_COMMENTS);
    const search = db.prepare(SEARCH);
    const withComments = (rows: unknown[]) => {
      const ids = (rows as { id: number; comment_count: number }[]).filter((r) => r.comment_count > 0).map((r) => r.id);
      return ids.length ? comments.all(JSON.stringify(ids)) : [];
    };
    const lo = searchPrefix;
    const hi = searchPrefix.slice(0, -1) + String.fromCharCode(searchPrefix.charCodeAt(searchPrefix.length - 1) + 1);
    const result: FloorResult = {
      discoverPage: time(() => discover.all(page)),
      discoverWithComments: time(() => withComments(discover.all(page))),
      followingPage: time(() => following.all(page)),
      followingWithComments: time(() => withComments(following.all(page))),
      searchPrefix: time(() => search.all({ lo, hi })),
      plans: {
        discover: plan(db, DISCOVER, page),
        following: plan(db, FOLLOWING, page),
        firstComments: plan(db, FIRST_COMMENTS, ['[1,2,3]']),
        search: plan(db, SEARCH, { lo, hi }),
      },
    };
    // The server's read tasks: what the feed routes run below HTTP (the repository's SQL, then the page's JSON).
    const posts = createPostsRepository(db);
    const tasks = createReadTasks(posts, createTagPages(db, posts));
    const newest = { createdAt: Number.MAX_SAFE_INTEGER, id: Number.MAX_SAFE_INTEGER };
    const { following_count: followingCount, block_count: blockCount } = db
      .prepare('SELECT following_count, block_count FROM users WHERE id = ?')
      .get(viewer) as { following_count: number; block_count: number };
    // users.blocks_version (migration 0019) as the request thread passes it; older trees have none.
    const hasVersion = (db.prepare("SELECT count(*) FROM pragma_table_info('users') WHERE name = 'blocks_version'").pluck().get() as number) > 0;
    const blocksVersion = hasVersion ? (db.prepare('SELECT blocks_version FROM users WHERE id = ?').pluck().get(viewer) as number) : undefined;
    result.repoDiscover = time(() => tasks.discover({ viewer, blockCount, blocksVersion, before: newest, limit: 20 }));
    result.repoFollowing = time(() => tasks.following({ viewer, blockCount, blocksVersion, followingCount, before: newest, limit: 20 }));
    if (blockCount > 0) {
      const next = { createdAt: Number.MAX_SAFE_INTEGER - 1, id: Number.MAX_SAFE_INTEGER };
      result.blocksCost = {
        blocks: blockCount,
        discover: timePair(
          () => tasks.discover({ viewer, blockCount, blocksVersion, before: newest, limit: 20 }),
          () => tasks.discover({ viewer, blockCount: 0, blocksVersion, before: newest, limit: 20 }),
        ),
        following: timePair(
          () => tasks.following({ viewer, blockCount, blocksVersion, followingCount, before: next, limit: 20 }),
          () => tasks.following({ viewer, blockCount: 0, blocksVersion, followingCount, before: next, limit: 20 }),
        ),
      };
    }
    // The same page asked for with a cursor (just below the newest possible): not served from a cache.
    const cursor = { createdAt: Number.MAX_SAFE_INTEGER - 1, id: Number.MAX_SAFE_INTEGER };
    result.repoFollowingComputed = time(() => tasks.following({ viewer, blockCount, followingCount, before: cursor, limit: 20 }));
    return result;
  } finally {
    db.close();
  }
}
