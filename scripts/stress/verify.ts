import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { Model } from './model.js';

export interface Verification {
  integrity: string;
  foreignKeyErrors: number;
  db: { users: number; posts: number; likes: number; comments: number; follows: number };
  expected: { posts: number; likes: number; comments: number; follows: number };
  inDoubt: { likes: number; follows: number; comments: number; posts: number };
  /** Each a human-readable disagreement; empty means the database agrees. */
  problems: string[];
  postsMissingImages: number;
  orphanMediaDirs: number;
}

const n = (db: Database.Database, sql: string) => (db.prepare(sql).get() as { n: number }).n;

/**
 * Opens the database (after the server stopped or crashed, as the next start
 * would) and checks it against what the clients were told.
 */
export function verify(dataDir: string, model: Model, usernames: string[]): Verification {
  const db = new Database(join(dataDir, 'shower-beer.db'), { fileMustExist: true });
  try {
    return check(db, dataDir, model, usernames);
  } finally {
    db.close();
  }
}

function check(db: Database.Database, dataDir: string, model: Model, usernames: string[]): Verification {
  const problems: string[] = [];
  const integrity = String(db.pragma('integrity_check', { simple: true }));
  if (integrity !== 'ok') problems.push(`integrity_check: ${integrity}`);
  const fk = db.pragma('foreign_key_check') as unknown[];
  if (fk.length > 0) problems.push(`${fk.length} foreign key violations`);

  const idByName = new Map((db.prepare('SELECT id, username FROM users').all() as { id: number; username: string }[]).map((r) => [r.username, r.id]));
  const idxById = new Map<number, number>();
  usernames.forEach((name, idx) => {
    const id = idByName.get(name);
    if (id === undefined) problems.push(`user ${name} is missing`);
    else idxById.set(id, idx);
  });

  // Posts.
  const dbPosts = new Map((db.prepare('SELECT id, media_key AS mediaKey FROM posts').all() as { id: number; mediaKey: string }[]).map((r) => [r.id, r.mediaKey]));
  let expectedPosts = 0;
  let unknownPosts = 0;
  const postUncertain = new Set<number>();
  for (const [id, post] of model.posts) {
    if (post.exists === 'yes') {
      expectedPosts++;
      if (!dbPosts.has(id)) problems.push(`post ${id} was acknowledged but is missing`);
      else if (dbPosts.get(id) !== post.mediaKey) problems.push(`post ${id} has another image than acknowledged`);
    } else if (post.exists === 'no') {
      if (dbPosts.has(id)) problems.push(`post ${id} was deleted (acknowledged) but is still there`);
    } else {
      unknownPosts++;
      postUncertain.add(id);
    }
  }
  const extraPosts = [...dbPosts.keys()].filter((id) => !model.posts.has(id));
  if (extraPosts.length > model.inDoubtPostCreates) {
    problems.push(`${extraPosts.length} posts nobody was told about, but only ${model.inDoubtPostCreates} creates were in doubt`);
  }
  for (const id of extraPosts) postUncertain.add(id);

  // Likes: every known (user, post) state must match; unknown ones may be either.
  const dbLikes = new Set(
    (db.prepare('SELECT post_id AS postId, user_id AS userId FROM likes').all() as { postId: number; userId: number }[]).map(
      (r) => `${idxById.get(r.userId) ?? `id${r.userId}`}:${r.postId}`,
    ),
  );
  let expectedLikes = 0;
  let unknownLikes = 0;
  for (const [key, state] of model.likes) {
    const postId = Number(key.split(':')[1]);
    const post = model.posts.get(postId);
    if (state === 'unknown' || postUncertain.has(postId)) {
      unknownLikes++;
      continue;
    }
    const shouldExist = state === 'yes' && post?.exists === 'yes';
    if (shouldExist) expectedLikes++;
    if (shouldExist !== dbLikes.has(key)) problems.push(`like ${key}: acknowledged ${shouldExist ? 'liked' : 'not liked'}, database says the opposite`);
  }
  for (const key of dbLikes) if (!model.likes.has(key)) problems.push(`like ${key} exists but no client ever liked it`);

  // Follows.
  const dbFollows = new Set(
    (db.prepare('SELECT follower_id AS a, followee_id AS b FROM follows').all() as { a: number; b: number }[]).map(
      (r) => `${idxById.get(r.a) ?? `id${r.a}`}:${idxById.get(r.b) ?? `id${r.b}`}`,
    ),
  );
  let expectedFollows = 0;
  let unknownFollows = 0;
  for (const [key, state] of model.follows) {
    if (state === 'unknown') {
      unknownFollows++;
      continue;
    }
    if (state === 'yes') expectedFollows++;
    if ((state === 'yes') !== dbFollows.has(key)) problems.push(`follow ${key}: acknowledged ${state === 'yes' ? 'following' : 'not following'}, database disagrees`);
  }
  for (const key of dbFollows) if (!model.follows.has(key)) problems.push(`follow ${key} exists but no client ever followed`);

  // Comments.
  const dbComments = new Map(
    (db.prepare('SELECT id, post_id AS postId, content FROM comments').all() as { id: number; postId: number; content: string }[]).map((r) => [r.id, r]),
  );
  let expectedComments = 0;
  let unknownComments = 0;
  for (const [id, c] of model.comments) {
    const post = model.posts.get(c.postId);
    if (c.exists === 'unknown' || postUncertain.has(c.postId)) {
      unknownComments++;
      continue;
    }
    const shouldExist = c.exists === 'yes' && post?.exists === 'yes';
    if (shouldExist) {
      expectedComments++;
      const row = dbComments.get(id);
      if (!row) problems.push(`comment ${id} was acknowledged but is missing`);
      else if (row.content !== c.content || row.postId !== c.postId) problems.push(`comment ${id} differs from what was acknowledged`);
    } else if (dbComments.has(id)) problems.push(`comment ${id} should be gone but is there`);
  }
  const extraComments = [...dbComments.values()].filter((c) => !model.comments.has(c.id) && !postUncertain.has(c.postId));
  if (extraComments.length > model.inDoubtCommentCreates) {
    problems.push(`${extraComments.length} comments nobody was told about, but only ${model.inDoubtCommentCreates} creates were in doubt`);
  }

  // Counter columns against the rows they count.
  const postDrift = n(
    db,
    `SELECT count(*) AS n FROM posts p WHERE like_count <> (SELECT count(*) FROM likes WHERE post_id = p.id)
       OR comment_count <> (SELECT count(*) FROM comments WHERE post_id = p.id)`,
  );
  if (postDrift > 0) problems.push(`${postDrift} posts whose like_count/comment_count differ from their rows`);
  const userDrift = db
    .prepare(
      `SELECT u.username,
         u.post_count - (SELECT count(*) FROM posts WHERE user_id = u.id AND is_profile_picture = 0) AS posts,
         u.public_post_count - (SELECT count(*) FROM posts WHERE user_id = u.id AND is_profile_picture = 0 AND is_anonymous = 0) AS publicPosts,
         u.likes_received - (SELECT coalesce(sum(like_count), 0) FROM posts WHERE user_id = u.id AND is_profile_picture = 0) AS likes,
         u.comments_received - (SELECT coalesce(sum(comment_count), 0) FROM posts WHERE user_id = u.id AND is_profile_picture = 0) AS comments,
         u.follower_count - (SELECT count(*) FROM follows WHERE followee_id = u.id) AS followers,
         u.following_count - (SELECT count(*) FROM follows WHERE follower_id = u.id) AS following
       FROM users u`,
    )
    .all() as Record<string, number | string>[];
  for (const row of userDrift) {
    const off = Object.entries(row).filter(([k, v]) => k !== 'username' && v !== 0);
    if (off.length > 0) problems.push(`user ${row.username}: counters off by ${off.map(([k, v]) => `${k} ${v}`).join(', ')}`);
  }

  // Every post's images are on disk.
  const mediaDir = join(dataDir, 'storage', 'media');
  let postsMissingImages = 0;
  for (const [id, key] of dbPosts) {
    if (!existsSync(join(mediaDir, key, 'display.webp')) || !existsSync(join(mediaDir, key, 'thumb.webp'))) {
      postsMissingImages++;
      if (postsMissingImages <= 5) problems.push(`post ${id} points at missing images (${key})`);
    }
  }
  if (postsMissingImages > 5) problems.push(`${postsMissingImages} posts point at missing images in all`);
  const keys = new Set(dbPosts.values());
  const orphanMediaDirs = existsSync(mediaDir) ? readdirSync(mediaDir).filter((k) => !keys.has(k)).length : 0;

  return {
    integrity,
    foreignKeyErrors: fk.length,
    db: {
      users: n(db, 'SELECT count(*) AS n FROM users'),
      posts: dbPosts.size,
      likes: dbLikes.size,
      comments: dbComments.size,
      follows: dbFollows.size,
    },
    expected: { posts: expectedPosts, likes: expectedLikes, comments: expectedComments, follows: expectedFollows },
    inDoubt: {
      likes: unknownLikes,
      follows: unknownFollows,
      comments: unknownComments + model.inDoubtCommentCreates,
      posts: unknownPosts + model.inDoubtPostCreates,
    },
    problems,
    postsMissingImages,
    orphanMediaDirs,
  };
}
