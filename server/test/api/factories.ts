import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { createCounters, type Counters } from '../../src/kernel/counters.js';

const countersOf = new WeakMap<Database.Database, Counters>();
/** The app's counter operations (src/kernel/counters.ts) on this database, prepared once. */
export function countersFor(sqlite: Database.Database): Counters {
  let found = countersOf.get(sqlite);
  if (!found) countersOf.set(sqlite, (found = createCounters(sqlite)));
  return found;
}

export interface PostFactoryInput {
  userId: number;
  caption?: string;
  isAnonymous?: boolean;
  isProfilePicture?: boolean;
  createdAt?: number;
}

/**
 * Inserts a post row directly (no upload pipeline), with a made-up media key,
 * keeping the counters right as create-post does (counters.ts).
 */
export function insertPost(sqlite: Database.Database, input: PostFactoryInput): { id: number; mediaKey: string; createdAt: number } {
  const mediaKey = `test-${randomUUID()}`;
  const createdAt = input.createdAt ?? Date.now();
  const anonymous = input.isAnonymous ? 1 : 0;
  const picture = input.isProfilePicture ? 1 : 0;
  return sqlite.transaction(() => {
    const { id } = sqlite
      .prepare(
        `INSERT INTO posts (user_id, caption, is_anonymous, is_profile_picture, media_key, width, height, created_at)
         VALUES (?, ?, ?, ?, ?, 1440, 1080, ?) RETURNING id`,
      )
      .get(input.userId, input.caption ?? '', anonymous, picture, mediaKey, createdAt) as { id: number };
    if (picture) {
      sqlite.prepare('UPDATE users SET profile_picture_key = ? WHERE id = ?').run(mediaKey, input.userId);
    } else {
      countersFor(sqlite).postCreated(input.userId, anonymous === 1);
    }
    return { id, mediaKey, createdAt };
  })();
}

const authorOf = (sqlite: Database.Database, postId: number) =>
  sqlite.prepare<[number], number>('SELECT user_id FROM posts WHERE id = ?').pluck().get(postId)!;

/**
 * A comment row written around the API (no recipient: it rings no bell), with the counters it
 * moves (counters.ts's commentAdded); returns its id.
 */
export function insertComment(sqlite: Database.Database, postId: number, userId: number, content: string, createdAt = Date.now()): number {
  return sqlite.transaction(() => {
    const { id } = sqlite
      .prepare('INSERT INTO comments (post_id, user_id, content, created_at) VALUES (?, ?, ?, ?) RETURNING id')
      .get(postId, userId, content, createdAt) as { id: number };
    countersFor(sqlite).commentAdded(postId, authorOf(sqlite, postId), 0, createdAt);
    return id;
  })();
}

/** A like row written around the API (no recipient: it rings no bell), with the counters it moves (counters.ts's likeAdded). */
export function insertLike(sqlite: Database.Database, postId: number, userId: number, createdAt = Date.now()): void {
  sqlite.transaction(() => {
    sqlite.prepare('INSERT INTO likes (post_id, user_id, created_at) VALUES (?, ?, ?)').run(postId, userId, createdAt);
    countersFor(sqlite).likeAdded(postId, authorOf(sqlite, postId), 0, createdAt);
  })();
}

/** Inserts `count` public posts one millisecond apart, oldest first; returns their ids. */
export function insertPosts(sqlite: Database.Database, userId: number, count: number, start = Date.now() - count): number[] {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) ids.push(insertPost(sqlite, { userId, caption: `post ${i}`, createdAt: start + i }).id);
  return ids;
}

/** The user's counter columns, to check that writes keep them right. */
export function userCounters(sqlite: Database.Database, userId: number) {
  return sqlite
    .prepare(
      `SELECT post_count AS postCount, public_post_count AS publicPostCount, likes_received AS likesReceived,
        comments_received AS commentsReceived, follower_count AS followerCount, following_count AS followingCount
       FROM users WHERE id = ?`,
    )
    .get(userId) as {
    postCount: number;
    publicPostCount: number;
    likesReceived: number;
    commentsReceived: number;
    followerCount: number;
    followingCount: number;
  };
}

/** A post's counter columns next to the true counts. */
export function postCounters(sqlite: Database.Database, postId: number) {
  return sqlite
    .prepare(
      `SELECT like_count AS likeCount, comment_count AS commentCount,
        (SELECT COUNT(*) FROM likes WHERE post_id = p.id) AS likes,
        (SELECT COUNT(*) FROM comments WHERE post_id = p.id) AS comments
       FROM posts p WHERE id = ?`,
    )
    .get(postId) as { likeCount: number; commentCount: number; likes: number; comments: number };
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
interface Injector {
  inject(opts: { method: Method; url: string; headers?: Record<string, string>; payload?: unknown }): Promise<{
    statusCode: number;
    body: string;
    json(): unknown;
  }>;
}

/** Calls the API as the holder of `token`; `json` is the parsed answer. */
export function client(app: Injector, token: string) {
  return async (method: Method, url: string, payload?: unknown) => {
    const res = await app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, payload: payload as object });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.statusCode, body: res.body, json: res.json() as any };
  };
}

/**
 * Counts statement executions on a connection's Statements (every query runs
 * through all/get/run/iterate; pass fewer names to count only those) and keeps
 * their SQL, until the test ends.
 */
export function countStatements(
  sqlite: Database.Database,
  t: { teardown(fn: () => void): void },
  methods: readonly string[] = ['all', 'get', 'run', 'iterate'],
) {
  const proto = Object.getPrototypeOf(sqlite.prepare('SELECT 1'));
  // `sql`: the text of each statement counted, in order.
  const counter = { count: 0, sql: [] as string[] };
  const originals: Record<string, (...args: unknown[]) => unknown> = {};
  for (const name of methods) {
    originals[name] = proto[name];
    proto[name] = function (this: { source: string }, ...args: unknown[]) {
      counter.count++;
      counter.sql.push(this.source);
      return originals[name]!.apply(this, args);
    };
  }
  t.teardown(() => {
    for (const name of Object.keys(originals)) proto[name] = originals[name];
  });
  return counter;
}
