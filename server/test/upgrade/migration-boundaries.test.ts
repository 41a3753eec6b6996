// Migrations 0012-0016 were edited after they shipped (the likes are rewritten once, by 0015:
// docs/self-hosting.md, "Upgrade"), and drizzle applies a migration only to a database that has
// not recorded it: a database stopped at any of 0011-0015 ran the versions as first written
// (kept in ./as-released/) and runs today's rest. For each such stop, a few likes, comments,
// follows and a read of the notifications are written as the code of that time wrote them
// (SQL below), then today's server starts on it; the same writes through today's API on the
// same people and posts must leave the same rows, counters and bells.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import t, { type Test } from 'tap';
import { issueAccessToken } from '../../src/kernel/auth/issue.js';
import { findAppRoot } from '../../src/kernel/config.js';
import { openDatabase, readJournal } from '../../src/kernel/db/client.js';
import { bearer } from '../helpers.js';
import { startToday, tempDir, type Teardown } from './today.js';

const MIGRATIONS = join(findAppRoot(), 'migrations');
const AS_RELEASED = join(import.meta.dirname, 'as-released');
const journal = readJournal(MIGRATIONS);

/** A migrations folder that ends at migration `last`, with 0012-0015 as they shipped. */
function migrationsUpTo(t: Teardown, last: number): string {
  const dir = tempDir(t, 'shower-beer-boundary-migrations-');
  mkdirSync(join(dir, 'meta'));
  const full = JSON.parse(readFileSync(join(MIGRATIONS, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };
  writeFileSync(join(dir, 'meta', '_journal.json'), JSON.stringify({ ...full, entries: full.entries.slice(0, last + 1) }));
  for (const e of journal.slice(0, last + 1)) {
    const released = e.idx >= 12 && e.idx <= 15;
    copyFileSync(join(released ? AS_RELEASED : MIGRATIONS, `${e.tag}.sql`), join(dir, `${e.tag}.sql`));
  }
  return dir;
}

// The people and posts every case starts from, written at migration `last` (0011's columns).
const PEOPLE = ['alice', 'bob', 'carol', 'dave'] as const;
type Person = (typeof PEOPLE)[number];
const id = (p: Person) => PEOPLE.indexOf(p) + 1;
// alice: two posts and a profile picture; bob: one post.
const POSTS = { alice1: 1, alice2: 2, alicePicture: 3, bob1: 4 } as const;

/**
 * A DATA_DIR holding a database migrated up to `last`, with the people and posts above, and one
 * like from before notifications existed (written at 0009, as 0.1.0's data): no notification
 * row was made for it, so only a recount of the bell (0012 as first written, 0016 now) shows it.
 */
function baseAt(t: Teardown, last: number): string {
  const dataDir = tempDir(t, 'shower-beer-boundary-');
  const file = join(dataDir, 'shower-beer.db');
  openDatabase(file, migrationsUpTo(t, 9)).close();
  const db = new Database(file);
  const at = Date.UTC(2026, 0, 1);
  const user = db.prepare('INSERT INTO users (id, sub, username, email, created_at, post_count, public_post_count) VALUES (?, ?, ?, ?, ?, ?, ?)');
  for (const p of PEOPLE) user.run(id(p), `sub-${p}`, p, `${p}@example.test`, at, p === 'alice' ? 2 : p === 'bob' ? 1 : 0, p === 'alice' ? 2 : p === 'bob' ? 1 : 0);
  const post = db.prepare('INSERT INTO posts (id, user_id, caption, is_profile_picture, media_key, width, height, created_at) VALUES (?, ?, ?, ?, ?, 640, 480, ?)');
  post.run(POSTS.alice1, id('alice'), 'Alice one', 0, 'media-1', at);
  post.run(POSTS.alice2, id('alice'), 'Alice two', 0, 'media-2', at);
  post.run(POSTS.alicePicture, id('alice'), '', 1, 'media-3', at);
  post.run(POSTS.bob1, id('bob'), 'Bob one', 0, 'media-4', at);
  db.prepare('INSERT INTO likes (post_id, user_id, created_at) VALUES (?, ?, ?)').run(POSTS.bob1, id('carol'), at + 1000);
  db.prepare('UPDATE posts SET like_count = 1 WHERE id = ?').run(POSTS.bob1);
  db.prepare('UPDATE users SET likes_received = 1 WHERE id = ?').run(id('bob'));
  db.close();
  openDatabase(file, migrationsUpTo(t, last)).close();
  return dataDir;
}

type Write =
  | { kind: 'like'; by: Person; post: number }
  | { kind: 'comment'; by: Person; post: number; text: string }
  | { kind: 'follow'; by: Person; of: Person }
  | { kind: 'read'; by: Person };

// Someone else's like, comment and follow ring the bell; one's own like and comment do not.
// alice reads hers midway, so some of hers are read and some not; bob never reads his.
const WRITES: Write[] = [
  { kind: 'like', by: 'bob', post: POSTS.alice1 },
  { kind: 'like', by: 'carol', post: POSTS.alice1 },
  { kind: 'like', by: 'alice', post: POSTS.alice1 },
  { kind: 'comment', by: 'bob', post: POSTS.alice1, text: 'Nice one' },
  { kind: 'comment', by: 'alice', post: POSTS.alice1, text: 'Thanks!' },
  { kind: 'follow', by: 'bob', of: 'alice' },
  { kind: 'like', by: 'alice', post: POSTS.bob1 },
  { kind: 'read', by: 'alice' },
  { kind: 'comment', by: 'carol', post: POSTS.alice2, text: 'Where is this?' },
  { kind: 'like', by: 'dave', post: POSTS.alice2 },
  { kind: 'follow', by: 'carol', of: 'alice' },
  { kind: 'follow', by: 'alice', of: 'bob' },
  { kind: 'comment', by: 'dave', post: POSTS.bob1, text: 'Cold?' },
];

async function startOn(t: Teardown, dataDir: string): Promise<{ server: FastifyInstance; as: (p: Person) => Promise<Record<string, string>> }> {
  const { server, config } = await startToday(t, dataDir);
  const as = async (p: Person) => bearer(await issueAccessToken(server.signingKey!, config.auth, { sub: `sub-${p}`, username: p, email: `${p}@example.test` }));
  return { server, as };
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 3));

/** The writes through today's API; answers each write's created_at (a read: the moment read up to). */
async function writeToday(t: Test, dataDir: string): Promise<number[]> {
  const { server, as } = await startOn(t, dataDir);
  const db = server.database.sqlite;
  const times: number[] = [];
  try {
    for (const w of WRITES) {
      await pause();
      const headers = await as(w.by);
      if (w.kind === 'like') {
        t.equal((await server.inject({ method: 'POST', url: '/api/like', headers, payload: { postId: w.post } })).statusCode, 201, `${w.by} likes post ${w.post}`);
        times.push((db.prepare('SELECT created_at AS at FROM likes WHERE post_id = ? AND user_id = ?').get(w.post, id(w.by)) as { at: number }).at);
      } else if (w.kind === 'comment') {
        t.equal((await server.inject({ method: 'POST', url: '/api/comment', headers, payload: { postId: w.post, comment: w.text } })).statusCode, 201, `${w.by} comments`);
        times.push((db.prepare('SELECT max(created_at) AS at FROM comments WHERE user_id = ?').get(id(w.by)) as { at: number }).at);
      } else if (w.kind === 'follow') {
        t.equal((await server.inject({ method: 'POST', url: `/api/account/${w.of}/follow`, headers })).statusCode, 200, `${w.by} follows ${w.of}`);
        times.push((db.prepare('SELECT created_at AS at FROM follows WHERE follower_id = ? AND followee_id = ?').get(id(w.by), id(w.of)) as { at: number }).at);
      } else {
        // As the web app does: up to the newest group it was shown.
        const groups = (await server.inject({ url: '/api/notifications', headers })).json() as Array<{ latestTime: number }>;
        const upTo = Math.max(...groups.map((g) => g.latestTime));
        t.equal((await server.inject({ method: 'POST', url: '/api/notifications/read', headers, payload: { upTo } })).statusCode, 200, `${w.by} reads`);
        times.push(upTo);
      }
    }
  } finally {
    // Closed before the comparison opens the same file again.
    await server.close();
  }
  return times;
}

/**
 * The same writes, at the same moments, as the code that ran on a database at migration `last`
 * wrote them: the counters it kept, and the bell: by 0010's triggers up to 0011 (a read moves
 * notifications_seen_id), by the write's own UPDATE from 0012 on (a read sets notifications_seen_at).
 */
function writeThen(dataDir: string, last: number, times: number[]): void {
  const db = new Database(join(dataDir, 'shower-beer.db'));
  const derived = last >= 12;
  const authorOf = (post: number) => (db.prepare('SELECT user_id AS u FROM posts WHERE id = ?').get(post) as { u: number }).u;
  db.transaction(() => {
    WRITES.forEach((w, i) => {
      const at = times[i]!;
      if (w.kind === 'like' || w.kind === 'comment') {
        const author = authorOf(w.post);
        const recipient = author === id(w.by) ? null : author;
        if (w.kind === 'like') {
          if (derived) db.prepare('INSERT INTO likes (post_id, user_id, created_at, recipient_id) VALUES (?, ?, ?, ?)').run(w.post, id(w.by), at, recipient);
          else db.prepare('INSERT INTO likes (post_id, user_id, created_at) VALUES (?, ?, ?)').run(w.post, id(w.by), at);
          db.prepare('UPDATE posts SET like_count = like_count + 1 WHERE id = ?').run(w.post);
          db.prepare('UPDATE users SET likes_received = likes_received + 1 WHERE id = ?').run(author);
        } else {
          if (derived) db.prepare('INSERT INTO comments (post_id, user_id, content, created_at, recipient_id) VALUES (?, ?, ?, ?, ?)').run(w.post, id(w.by), w.text, at, recipient);
          else db.prepare('INSERT INTO comments (post_id, user_id, content, created_at) VALUES (?, ?, ?, ?)').run(w.post, id(w.by), w.text, at);
          db.prepare('UPDATE posts SET comment_count = comment_count + 1 WHERE id = ?').run(w.post);
          db.prepare('UPDATE users SET comments_received = comments_received + 1 WHERE id = ?').run(author);
        }
        if (derived && recipient !== null) db.prepare('UPDATE users SET unread_notifications = unread_notifications + 1 WHERE id = ?').run(recipient);
      } else if (w.kind === 'follow') {
        db.prepare('INSERT INTO follows (follower_id, followee_id, created_at) VALUES (?, ?, ?)').run(id(w.by), id(w.of), at);
        db.prepare('UPDATE users SET follower_count = follower_count + 1, unread_notifications = unread_notifications + ? WHERE id = ?').run(derived ? 1 : 0, id(w.of));
        db.prepare('UPDATE users SET following_count = following_count + 1 WHERE id = ?').run(id(w.by));
      } else if (derived) {
        db.prepare('UPDATE users SET notifications_seen_at = ?, unread_notifications = 0 WHERE id = ?').run(at, id(w.by));
      } else {
        db.prepare('UPDATE users SET notifications_seen_id = coalesce((SELECT max(id) FROM notifications WHERE user_id = @u), 0), unread_notifications = 0 WHERE id = @u').run({ u: id(w.by) });
      }
    });
  })();
  db.close();
}

const QUERIES = {
  likes: 'SELECT post_id, user_id, created_at, recipient_id FROM likes ORDER BY post_id, user_id',
  comments: 'SELECT id, post_id, user_id, content, created_at, hidden, recipient_id FROM comments ORDER BY id',
  follows: 'SELECT follower_id, followee_id, created_at FROM follows ORDER BY follower_id, followee_id',
  posts: 'SELECT id, like_count, comment_count FROM posts ORDER BY id',
  users: `SELECT id, username, post_count, public_post_count, likes_received, comments_received, follower_count, following_count,
            unread_notifications, notifications_seen_at, notified_at FROM users ORDER BY id`,
};

async function whatPeopleSee(server: FastifyInstance, as: (p: Person) => Promise<Record<string, string>>) {
  const seen: Record<string, unknown> = {};
  for (const p of PEOPLE) {
    const headers = await as(p);
    seen[`${p}'s bell`] = (await server.inject({ url: '/api/notifications/unread', headers })).json();
    seen[`${p}'s notifications`] = (await server.inject({ url: '/api/notifications', headers })).json();
  }
  return seen;
}

for (const last of [11, 12, 13, 14, 15]) {
  const tag = journal[last]!.tag;
  t.test(`a database stopped at ${tag}, written to by that code, upgrades to what today's code writes`, async (t) => {
    const todayDir = baseAt(t, last);
    const times = await writeToday(t, todayDir);
    const thenDir = baseAt(t, last);
    writeThen(thenDir, last, times);

    const today = await startOn(t, todayDir);
    const then = await startOn(t, thenDir);
    t.same(then.server.database.applied, journal.slice(last + 1).map((e) => e.tag), `today's server applied ${journal[last + 1]!.tag} to ${journal.at(-1)!.tag} at start`);
    const a = today.server.database.sqlite;
    const b = then.server.database.sqlite;
    t.ok((a.prepare(QUERIES.likes).all() as unknown[]).length >= 5, 'the likes are there to compare');
    for (const [name, sql] of Object.entries(QUERIES)) t.same(b.prepare(sql).all(), a.prepare(sql).all(), `${name}: every row as today's code writes it`);
    t.same(
      await whatPeopleSee(then.server, then.as),
      await whatPeopleSee(today.server, today.as),
      'every bell and Notifications screen as after the same writes through today\'s code',
    );
    const bells = Object.fromEntries((a.prepare('SELECT username, unread_notifications AS n FROM users').all() as Array<{ username: string; n: number }>).map((r) => [r.username, r.n]));
    t.same(bells, { alice: 3, bob: 4, carol: 0, dave: 0 }, 'alice: the 3 that came after her read; bob: all 4 of his, carol\'s like from before notifications too');
    t.equal(b.pragma('integrity_check', { simple: true }), 'ok', 'integrity_check');
    t.same(b.pragma('foreign_key_check'), [], 'foreign_key_check');
    t.notOk(b.prepare("SELECT 1 FROM sqlite_master WHERE name = '__deferred_by_0012'").get(), 'nothing left of 0012\'s deferral');
  });
}
