import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/** What a client could notice changing: every table's rows, every counter, every stored file. */
export function snapshot(app: FastifyInstance) {
  const db = app.database.sqlite;
  const count = (sql: string) => (db.prepare(sql).get() as { n: number | null }).n ?? 0;
  return {
    users: count('SELECT count(*) AS n FROM users'),
    posts: count('SELECT count(*) AS n FROM posts'),
    likes: count('SELECT count(*) AS n FROM likes'),
    comments: count('SELECT count(*) AS n FROM comments'),
    follows: count('SELECT count(*) AS n FROM follows'),
    uploads: count("SELECT count(*) AS n FROM uploads WHERE status <> 'pending'"),
    pendingUploads: count("SELECT count(*) AS n FROM uploads WHERE status = 'pending'"),
    postCounters: count('SELECT sum(like_count * 1000 + comment_count) AS n FROM posts'),
    userCounters: count(
      `SELECT sum(post_count + public_post_count * 10 + likes_received * 100 + comments_received * 1000
                 + follower_count * 10000 + following_count * 100000) AS n FROM users`,
    ),
    usernames: (db.prepare('SELECT group_concat(username, \'|\') AS n FROM users').get() as { n: string | null }).n,
    files: listFiles(app.config.storage.localDir),
  };
}

/** Stored files (relative paths), temp files included: a refused request leaves none behind. */
export function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of entries) {
      const path = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      if (statSync(path).isDirectory()) walk(path, r);
      else out.push(r);
    }
  };
  walk(root, '');
  return out.sort();
}

/** A client error in our one shape, with a message that says something. */
export function clientError(res: LightMyRequestResponse): { ok: boolean; why: string } {
  let body: unknown;
  try {
    body = res.json();
  } catch {
    return { ok: false, why: `not JSON: ${res.statusCode} ${res.body.slice(0, 200)}` };
  }
  const b = body as { error?: unknown; message?: unknown };
  const ok =
    res.statusCode >= 400 &&
    res.statusCode < 500 &&
    typeof b.error === 'string' &&
    typeof b.message === 'string' &&
    b.message.length > 5;
  return { ok, why: `${res.statusCode} ${res.body.slice(0, 300)}` };
}
