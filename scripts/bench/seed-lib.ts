import { existsSync, mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { findAppRoot } from '../../server/src/kernel/config.js';
import { openDatabase } from '../../server/src/kernel/db/client.js';
import { recountAllUnread } from '../../server/src/social/notifications-repository.js';
import { tagsOf } from '../../server/src/contract/entities.js';
import { createCounters } from '../../server/src/kernel/counters.js';
import { createSuspensionSteps } from '../../server/src/people/suspension.js';
import { createInvitesRepository } from '../../server/src/registration/invites-repository.js';
import { createPersonSteps } from '../../server/src/person-steps.js';
import { writeSharedMedia, type SharedMedia } from './images.js';
import { createRng, weightedSampler, zipfWeights, type Rng } from './random.js';
import { ADJECTIVES, COMMENTS, NOUNS, caption } from './words.js';

export interface SeedOptions {
  dataDir: string;
  users: number;
  posts: number;
  likes: number;
  comments: number;
  follows: number;
  /** PRNG seed: the same options give the same community. */
  seed: number;
  /** How many accounts the bench reader follows (the Following feed's case). */
  readerFollows: number;
  /** Shared processed images every post points at. */
  mediaCount: number;
  /** Keep sqlite_stat1 from ANALYZE (sqlite_stat4 is always removed). */
  analyze: boolean;
  /** Replace an existing database in dataDir. */
  force: boolean;
  /** The newest moment of the data (ms); activity spreads over the year before. */
  now?: number;
  /**
   * People of other servers (federation, issue 49 item 8): `followers` of them on `servers` servers
   * follow one local person who posts (SeedInfo.federated), and they wrote `posts` posts kept here.
   * Left out: none (the set of a tree without federation).
   */
  remote?: { servers: number; followers: number; posts: number };
  log?: (line: string) => void;
}

/** What the seed made, written to DATA_DIR/seed.json for the bench. */
export interface SeedInfo {
  /** Bumped when the seed's output changes, so the bench re-seeds stale sets. */
  format: number;
  options: Omit<SeedOptions, 'dataDir' | 'log' | 'force'>;
  counts: {
    users: number;
    posts: number;
    profilePictures: number;
    likes: number;
    comments: number;
    follows: number;
    blocks: number;
    suspended: number;
  };
  seconds: number;
  /** CPU time of the seeding process (wall time depends on what else the machine runs). */
  cpuSeconds?: number;
  phases: Record<string, number>;
  /** A signed-in user following `readerFollows` people, as the bench's client. */
  reader: { id: number; sub: string; username: string; email: string; following: number; postCount: number };
  /** The most followed user (a big profile to view). */
  celebrity: { id: number; username: string; publicPostCount: number; followerCount: number };
  /** Users the bench may follow/unfollow and whose posts it may like. */
  someUsernames: string[];
  /** Username prefixes the bench searches for. */
  searchPrefixes: string[];
  media: SharedMedia[];
  /** Inclusive range of regular (non profile picture) post ids. */
  postIds: [number, number];
  /** The people of other servers (SeedOptions.remote), when seeded. */
  remote?: RemoteSeed;
}

/** What the seed made of other servers (scripts/bench/federation.ts binds their hosts to live listeners). */
export interface RemoteSeed {
  /** Their hosts as seeded (`r001.bench.test`, …): placeholders the bench rewrites to loopback ports. */
  hosts: string[];
  /** Hosts offering a shared inbox (the others take each follower's own inbox). */
  sharedInboxHosts: number;
  people: number;
  posts: number;
  /** Each of them follows this local person, who posts (the delivery fan-out's author). */
  federated: { id: number; sub: string; username: string; email: string; remoteFollowers: number };
  /** Remote people the bench reader follows (their posts are in its Following feed). */
  readerFollowsRemote: number;
  /** The inclusive range of the remote people's users.id. */
  userIds: [number, number];
}

const DAY = 86_400_000;
// 5: likes WITHOUT ROWID and no comments_recipient_idx (migrations 0013, 0014), seeded as such rather than migrated at start.
// 6: likes keyed by (post_id, created_at, user_id) with no index by recipient (migration 0015); the same rows as 5.
// 7: follows WITHOUT ROWID and users.notified_at (migration 0016).
// 8: hashtags (migration 0027): post_hashtags from the captions, and RARE_TAG on every RARE_EVERY-th post.
// 9: people of other servers (migrations 0031-0035): SeedOptions.remote, after everything else (the local rows are format 8's).
export const SEED_FORMAT = 9;

/** The seed's most used tag: one caption ending in ten has it (words.ts, TAILS). */
export const TOP_TAG = 'showerbeer';
/** A rare tag, on one post in RARE_EVERY: 10 posts of the small set, 1 000 of the reference one. */
export const RARE_TAG = 'saunaclub';
const RARE_EVERY = 1000;
const SEED_INFO = 'seed.json';

export const readSeedInfo = (dataDir: string): SeedInfo | null => {
  const file = join(dataDir, SEED_INFO);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as SeedInfo) : null;
};

/** Sizes for a number of posts, in the reference set's proportions. */
export function proportionalSizes(posts: number) {
  return {
    users: Math.max(400, Math.round(posts / 10)),
    posts,
    likes: posts * 5,
    comments: posts,
    follows: posts,
  };
}

/**
 * Multi-row INSERT with one prepared statement per batch size: values are
 * pushed one by one and flushed every `rows` rows (fewer calls into SQLite).
 */
function inserter(db: Database.Database, table: string, columns: string[], rows = 200) {
  const tuple = `(${columns.map(() => '?').join(',')})`;
  const sqlFor = (n: number) => `INSERT INTO ${table} (${columns.join(',')}) VALUES ${new Array(n).fill(tuple).join(',')}`;
  const full = db.prepare(sqlFor(rows));
  const buf: unknown[] = new Array(rows * columns.length);
  let pos = 0;
  let count = 0;
  return {
    push(value: unknown) {
      buf[pos++] = value;
      if (pos === buf.length) {
        full.run(buf);
        count += rows;
        pos = 0;
      }
    },
    finish() {
      if (pos > 0) {
        const n = pos / columns.length;
        db.prepare(sqlFor(n)).run(buf.slice(0, pos));
        count += n;
        pos = 0;
      }
      return count;
    },
  };
}

/** Chooses `k` distinct users by `sample`, skipping `exclude`; `mark`/`stamp` make the check O(1). */
function distinctUsers(
  k: number,
  sample: () => number,
  exclude: number,
  mark: Int32Array,
  stamp: number,
  out: Int32Array,
  accept: (u: number) => boolean = () => true,
): number {
  let n = 0;
  let attempts = 0;
  while (n < k && attempts < 30 * k + 100) {
    attempts++;
    const u = sample();
    if (u === exclude || mark[u] === stamp || !accept(u)) continue;
    mark[u] = stamp;
    out[n++] = u;
  }
  // Too skewed to finish by sampling (tiny communities): take the rest in order.
  for (let u = 0; n < k && u < mark.length; u++) {
    if (u === exclude || mark[u] === stamp || !accept(u)) continue;
    mark[u] = stamp;
    out[n++] = u;
  }
  return n;
}

export async function seedDataDir(opts: SeedOptions): Promise<SeedInfo> {
  const clock = phaseClock(opts.log ?? (() => {}));
  const dbFile = prepareDataDir(opts);
  // One generator for everything, so the same seed gives the same bytes: the steps below
  // must keep drawing from it in this order.
  const rng: Rng = createRng(opts.seed);
  const end = opts.now ?? Date.now();
  const span: TimeSpan = { start: end - 365 * DAY, end };

  const media = await writeSharedMedia(join(opts.dataDir, 'storage'), opts.mediaCount, rng);
  clock.phase('images');
  const community = generateCommunity(opts, span, media.length, rng);
  clock.phase('generate');

  const { handle, indexes } = openForBulkLoad(dbFile);
  const db = handle.sqlite;
  const users = inTransaction(db, () => insertUsers(db, community, media, rng));
  clock.phase('users');
  const pictures = inTransaction(db, () => insertPosts(db, community, users, media, rng));
  clock.phase('posts');
  const likes = inTransaction(db, () => insertLikes(db, community, span, rng));
  clock.phase('likes');
  const comments = inTransaction(db, () => insertComments(db, community, span, rng));
  clock.phase('comments');
  inTransaction(db, () => insertFollows(db, community, span, rng));
  clock.phase('follows');
  for (const { sql } of indexes) db.exec(sql);
  clock.phase('indexes');
  const moderation = inTransaction(db, () => insertModeration(db, community, span, rng));
  clock.phase('blocks+suspensions');
  const remote = opts.remote && opts.remote.followers > 0 ? inTransaction(db, () => insertRemote(db, community, span, media, opts.remote!, createRng(opts.seed + 49))) : undefined;
  if (remote) clock.phase('remote people');
  inTransaction(db, () => markNotificationsSeen(db, span));
  clock.phase('notifications');
  const finalCounts = readFinalCounts(db, community);
  analyzeAndClose(handle, opts.analyze);
  clock.phase('analyze+close');

  const info = describeSeed(
    opts,
    span,
    community,
    { usernames: users.usernames, pictures, likes, comments, media, clock, moderation, finalCounts },
    rng,
  );
  if (remote) info.remote = remote;
  writeFileSync(join(opts.dataDir, SEED_INFO), JSON.stringify(info, null, 2));
  return info;
}

/** Times each phase of the seed (logged, and kept in seed.json) and the whole of it. */
function phaseClock(log: (line: string) => void) {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const phases: Record<string, number> = {};
  let mark = t0;
  return {
    phases,
    phase(name: string) {
      const now = performance.now();
      phases[name] = Math.round(now - mark) / 1000;
      log(`  ${name}: ${phases[name]!.toFixed(1)} s`);
      mark = now;
    },
    seconds: () => Math.round(performance.now() - t0) / 1000,
    cpuSeconds() {
      const d = process.cpuUsage(cpu0);
      return Math.round((d.user + d.system) / 1000) / 1000;
    },
  };
}
type PhaseClock = ReturnType<typeof phaseClock>;

/** Checks the sizes, removes an old database when asked to, and returns the database's path. */
function prepareDataDir(opts: SeedOptions): string {
  if (opts.users < 3) throw new Error('--users must be at least 3');
  const dbFile = join(opts.dataDir, 'shower-beer.db');
  if (existsSync(dbFile)) {
    if (!opts.force) throw new Error(`${dbFile} exists: pass --force to replace it`);
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(dbFile + suffix, { force: true });
  }
  mkdirSync(opts.dataDir, { recursive: true });
  return dbFile;
}

/** The year the activity spreads over (ms). */
interface TimeSpan {
  start: number;
  end: number;
}

/** The bench's client, user id 1. */
const READER = 0;

/** Everything about the community that is decided before the database is written (user and post indexes from 0). */
type Community = ReturnType<typeof generateCommunity>;

function generateCommunity(opts: SeedOptions, span: TimeSpan, mediaCount: number, rng: Rng) {
  const N = opts.users;
  const P = opts.posts;
  const popularity = drawPopularity(N, rng);
  const posts = drawPosts(N, P, span, mediaCount, popularity.postSample, rng);
  const userCreated = drawJoinDates(N, span, posts.firstPost, rng);
  const engagement = drawEngagementCounts(N, opts, posts.author, popularity.fameW, rng);
  const follows = drawFollows(N, opts.readerFollows, opts.follows, popularity, posts.publicCount);
  return { N, P, ...popularity, ...posts, userCreated, ...engagement, ...follows };
}

/** Who is popular, who is active (Zipf-like). */
function drawPopularity(N: number, rng: Rng) {
  const fame = rng.permutation(N); // fame[rank] = user index
  const fameW = zipfWeights(fame, 1.0); // attracts followers
  const postW = zipfWeights(fame, 0.8); // popular people post more
  const actW = zipfWeights(rng.permutation(N), 0.6); // likes, comments, follows given
  const postSample = weightedSampler(postW, rng);
  const fameSample = weightedSampler(fameW, rng);
  const actSample = weightedSampler(actW, rng);
  return { fame, fameW, postSample, fameSample, actSample };
}

/** Posts: times spread over the year, ids in time order; their authors, anonymity and image. */
function drawPosts(N: number, P: number, span: TimeSpan, mediaCount: number, postSample: () => number, rng: Rng) {
  const { start, end } = span;
  const postTime = new Float64Array(P);
  for (let i = 0; i < P; i++) postTime[i] = start + rng.next() * (end - start - 60_000);
  postTime.sort();
  const author = new Int32Array(P);
  const anon = new Uint8Array(P);
  const postMedia = new Uint8Array(P);
  const postCount = new Int32Array(N);
  const publicCount = new Int32Array(N);
  const firstPost = new Float64Array(N).fill(Infinity);
  for (let i = 0; i < P; i++) {
    const a = postSample();
    author[i] = a;
    anon[i] = rng.next() < 0.1 ? 1 : 0;
    postMedia[i] = rng.int(mediaCount);
    postCount[a]!++;
    if (!anon[i]) publicCount[a]!++;
    if (firstPost[a]! > postTime[i]!) firstPost[a] = postTime[i]!;
  }
  return { postTime, author, anon, postMedia, postCount, publicCount, firstPost };
}

/** When each user joined: some time before their first post. */
function drawJoinDates(N: number, span: TimeSpan, firstPost: Float64Array, rng: Rng) {
  const { start, end } = span;
  const userCreated = new Float64Array(N);
  for (let u = 0; u < N; u++) {
    const joined = start + rng.next() * (end - start) * 0.9;
    userCreated[u] = Math.floor(Math.min(joined, firstPost[u]!) - rng.exp(3 * DAY));
  }
  return userCreated;
}

/** Like and comment counts per post, and what each author received: famous authors and lucky posts get more. */
function drawEngagementCounts(N: number, opts: SeedOptions, author: Int32Array, fameW: Float64Array, rng: Rng) {
  const P = opts.posts;
  const likeW = new Float64Array(P);
  for (let i = 0; i < P; i++) likeW[i] = Math.pow(fameW[author[i]!]!, 0.4) * (0.2 + 3 * rng.next() ** 3);
  const postPick = weightedSampler(likeW, rng);
  // At most half the others like one post, so distinct likers can still be drawn by sampling.
  const likeCap = Math.floor((N - 1) / 2);
  const L = Math.min(opts.likes, Math.floor(P * likeCap * 0.8));
  const likeCount = new Int32Array(P);
  for (let drawn = 0; drawn < L; ) {
    const i = postPick();
    if (likeCount[i]! < likeCap) {
      likeCount[i]!++;
      drawn++;
    }
  }
  const commentCount = new Int32Array(P);
  for (let c = 0; c < opts.comments; c++) commentCount[postPick()]!++;
  const likesReceived = new Float64Array(N);
  const commentsReceived = new Float64Array(N);
  for (let i = 0; i < P; i++) {
    likesReceived[author[i]!]! += likeCount[i]!;
    commentsReceived[author[i]!]! += commentCount[i]!;
  }
  return { likeCount, commentCount, likesReceived, commentsReceived };
}

/** Follows: active people follow famous people; the reader follows `readerFollows` people who post publicly. */
function drawFollows(
  N: number,
  readerFollows: number,
  follows: number,
  popularity: { fameSample: () => number; actSample: () => number },
  publicCount: Int32Array,
) {
  const followCap = Math.floor((N - 1) / 2);
  const readerFollowing = Math.min(readerFollows, followCap);
  const following = new Int32Array(N);
  following[READER] = readerFollowing;
  const F = Math.min(follows, Math.floor(N * followCap * 0.8));
  for (let drawn = readerFollowing; drawn < F; ) {
    const u = popularity.actSample();
    if (u !== READER && following[u]! < followCap) {
      following[u]!++;
      drawn++;
    }
  }
  // Pairs in (follower, followee) order, which is the table's primary key.
  const followPairs = new Int32Array(F * 2);
  const followerCount = new Int32Array(N);
  const seen = new Int32Array(N);
  const tmp = new Int32Array(N);
  let fp = 0;
  for (let u = 0; u < N; u++) {
    const k = following[u]!;
    if (k === 0) continue;
    const accept = u === READER ? (v: number) => publicCount[v]! > 0 : undefined;
    const n = distinctUsers(k, popularity.fameSample, u, seen, u + 1, tmp, accept);
    following[u] = n;
    const chosen = tmp.subarray(0, n).sort();
    for (const v of chosen) {
      followPairs[fp++] = u;
      followPairs[fp++] = v;
      followerCount[v]!++;
    }
  }
  return { following, followPairs: followPairs.subarray(0, fp), followerCount };
}

/**
 * Opens the database (created by the real migrations) for a one-off bulk load: no journal,
 * no fsync, and the secondary indexes dropped, to be rebuilt once over the sorted data.
 */
function openForBulkLoad(dbFile: string) {
  const handle = openDatabase(dbFile, join(findAppRoot(), 'migrations'));
  const db = handle.sqlite;
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('foreign_keys = OFF');
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('cache_size = -524288');
  db.pragma('temp_store = MEMORY');
  const tables = ['users', 'posts', 'likes', 'comments', 'follows'];
  const indexes = db
    .prepare<[], { name: string; sql: string }>(
      `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
       AND tbl_name IN (${tables.map((t) => `'${t}'`).join(',')})`,
    )
    .all();
  for (const { name } of indexes) db.exec(`DROP INDEX "${name}"`);
  return { handle, indexes };
}

function inTransaction<T>(db: Database.Database, write: () => T): T {
  db.exec('BEGIN');
  const result = write();
  db.exec('COMMIT');
  return result;
}

/** Users with their counters; 70% get a profile picture. */
function insertUsers(db: Database.Database, c: Community, media: SharedMedia[], rng: Rng) {
  const usernames: string[] = new Array(c.N);
  const usersIns = inserter(db, 'users', [
    'id', 'sub', 'username', 'email', 'profile_picture_key', 'post_count', 'public_post_count',
    'likes_received', 'comments_received', 'follower_count', 'following_count', 'created_at',
  ]);
  const hasPicture = new Uint8Array(c.N);
  const pictureMedia = new Uint8Array(c.N);
  for (let u = 0; u < c.N; u++) {
    const name = u === READER ? 'bench_reader' : `${rng.pick(ADJECTIVES)}_${rng.pick(NOUNS)}${u + 1}`;
    usernames[u] = name;
    hasPicture[u] = rng.next() < 0.7 ? 1 : 0;
    pictureMedia[u] = rng.int(media.length);
    usersIns.push(u + 1);
    usersIns.push(`seed-${u + 1}`);
    usersIns.push(name);
    usersIns.push(`${name}@example.test`);
    usersIns.push(hasPicture[u] ? media[pictureMedia[u]!]!.key : null);
    usersIns.push(c.postCount[u]);
    usersIns.push(c.publicCount[u]);
    usersIns.push(c.likesReceived[u]);
    usersIns.push(c.commentsReceived[u]);
    usersIns.push(c.followerCount[u]);
    usersIns.push(c.following[u]);
    usersIns.push(c.userCreated[u]);
  }
  usersIns.finish();
  return { usernames, hasPicture, pictureMedia };
}

/** Regular posts in time order, then the profile pictures; returns how many pictures. */
function insertPosts(
  db: Database.Database,
  c: Community,
  users: { hasPicture: Uint8Array; pictureMedia: Uint8Array },
  media: SharedMedia[],
  rng: Rng,
): number {
  const postsIns = inserter(db, 'posts', [
    'id', 'user_id', 'caption', 'is_anonymous', 'is_profile_picture', 'media_key', 'width', 'height',
    'like_count', 'comment_count', 'created_at',
  ]);
  const tagRows: Array<[string, number, number]> = [];
  for (let i = 0; i < c.P; i++) {
    const m = media[c.postMedia[i]!]!;
    postsIns.push(i + 1);
    postsIns.push(c.author[i]! + 1);
    // The rare tag is appended without a draw of its own: the generator's sequence stays the same.
    const drawn = rng.next() < 0.05 ? '' : caption(rng.pick);
    const text = i % RARE_EVERY === RARE_EVERY - 1 ? `${drawn} #${RARE_TAG}`.trim() : drawn;
    postsIns.push(text);
    // The post's tags as create-post writes them (hashtags/hashtags-repository.ts), inserted after the posts.
    for (const tag of tagsOf(text)) tagRows.push([tag, i + 1, Math.floor(c.postTime[i]!)]);
    postsIns.push(c.anon[i]);
    postsIns.push(0);
    postsIns.push(m.key);
    postsIns.push(m.width);
    postsIns.push(m.height);
    postsIns.push(c.likeCount[i]);
    postsIns.push(c.commentCount[i]);
    postsIns.push(Math.floor(c.postTime[i]!));
  }
  let pictures = 0;
  for (let u = 0; u < c.N; u++) {
    if (!users.hasPicture[u]) continue;
    const m = media[users.pictureMedia[u]!]!;
    pictures++;
    postsIns.push(c.P + pictures);
    postsIns.push(u + 1);
    postsIns.push('');
    postsIns.push(0);
    postsIns.push(1);
    postsIns.push(m.key);
    postsIns.push(m.width);
    postsIns.push(m.height);
    postsIns.push(0);
    postsIns.push(0);
    postsIns.push(Math.floor(c.userCreated[u]! + rng.next() * DAY));
  }
  postsIns.finish();
  const tagsIns = inserter(db, 'post_hashtags', ['tag', 'post_id', 'created_at']);
  for (const row of tagRows) for (const value of row) tagsIns.push(value);
  tagsIns.finish();
  return pictures;
}

/** Likes: distinct (post, user), inserted in primary-key order (post, time, user) so the key only appends. Returns how many. */
function insertLikes(db: Database.Database, c: Community, span: TimeSpan, rng: Rng): number {
  // recipient_id: the author (distinctUsers never picks the author, so no like is one's own).
  const likesIns = inserter(db, 'likes', ['post_id', 'user_id', 'created_at', 'recipient_id'], 400);
  const likeSeen = new Int32Array(c.N);
  const likers = new Int32Array(c.N);
  let likeTotal = 0;
  for (let i = 0; i < c.P; i++) {
    const k = c.likeCount[i]!;
    if (k === 0) continue;
    const n = distinctUsers(k, c.actSample, c.author[i]!, likeSeen, i + 1, likers);
    if (n !== k) throw new Error(`post ${i + 1}: only ${n} of ${k} likers`);
    const chosen = likers.subarray(0, n).sort();
    const t = c.postTime[i]!;
    // Times drawn in the likers' order (as format 5 did, so the rows are the same), then sorted.
    const rows = Array.from(chosen, (u) => ({ u, at: Math.floor(Math.min(span.end, Math.max(t, c.userCreated[u]!) + rng.exp(DAY))) }));
    rows.sort((a, b) => a.at - b.at || a.u - b.u);
    for (const { u, at } of rows) {
      likesIns.push(i + 1);
      likesIns.push(u + 1);
      likesIns.push(at);
      likesIns.push(c.author[i]! + 1);
    }
    likeTotal += n;
  }
  likesIns.finish();
  return likeTotal;
}

/** Comments: per post, oldest first. Returns how many. */
function insertComments(db: Database.Database, c: Community, span: TimeSpan, rng: Rng): number {
  const commentsIns = inserter(db, 'comments', ['id', 'post_id', 'user_id', 'content', 'created_at', 'recipient_id']);
  let commentId = 0;
  for (let i = 0; i < c.P; i++) {
    const k = c.commentCount[i]!;
    let t = c.postTime[i]!;
    for (let n = 0; n < k; n++) {
      t = Math.min(span.end, t + rng.exp(DAY / 4));
      const commenter = c.actSample();
      commentsIns.push(++commentId);
      commentsIns.push(i + 1);
      commentsIns.push(commenter + 1);
      commentsIns.push(rng.pick(COMMENTS));
      commentsIns.push(Math.floor(t));
      commentsIns.push(commenter === c.author[i] ? null : c.author[i]! + 1);
    }
  }
  commentsIns.finish();
  return commentId;
}

/** Follows, in primary-key order, each made after both users joined. */
function insertFollows(db: Database.Database, c: Community, span: TimeSpan, rng: Rng) {
  const followsIns = inserter(db, 'follows', ['follower_id', 'followee_id', 'created_at'], 400);
  for (let j = 0; j < c.followPairs.length; j += 2) {
    const a = c.followPairs[j]!;
    const b = c.followPairs[j + 1]!;
    const since = Math.max(c.userCreated[a]!, c.userCreated[b]!);
    followsIns.push(a + 1);
    followsIns.push(b + 1);
    followsIns.push(Math.floor(since + rng.next() * (span.end - since)));
  }
  followsIns.finish();
}

/**
 * Notifications as people who open the app have them: each has seen theirs up to 0 to 13
 * days before the end (spread by id, no draw from the generator), so the bell counts what
 * came since; then every bell, and notified_at, is counted from the rows (notifications-repository.ts).
 */
function markNotificationsSeen(db: Database.Database, span: TimeSpan) {
  db.prepare('UPDATE users SET notifications_seen_at = @end - ((id * 7919) % 14) * @day').run({ end: span.end, day: DAY });
  recountAllUnread(db);
}

/** Users the moderation step leaves alone: the reader and the 200 most followed (the bench follows, views and likes them). */
const KEPT_FAMOUS = 200;

/**
 * Blocks and suspensions as a running community has them: 1% of users block 20
 * others each, drawn by how much they post (people block those whose posts they
 * see), and 0.1% are suspended. The reader is one of the blockers, so the bench's
 * feeds take the statements for a viewer with blocks (posts-repository.ts); it
 * blocks no one it follows and none of the most followed, and nobody blocks it. Runs after the indexes
 * are built, through the server's own rules: a block removes a follow either way
 * with its counters (as blocks-repository.ts), a suspension hides posts and
 * comments and takes the account's likes, comments and follows out of every
 * counter (people/suspension.ts).
 */
function insertModeration(db: Database.Database, c: Community, span: TimeSpan, rng: Rng) {
  const kept = new Set<number>([READER]);
  for (let rank = 0; rank < Math.min(KEPT_FAMOUS, c.N); rank++) kept.add(c.fame[rank]!);
  const readerFollows = new Set<number>();
  for (let j = 0; j < c.followPairs.length && c.followPairs[j] === READER; j += 2) readerFollows.add(c.followPairs[j + 1]!);

  const suspended = new Set<number>();
  const S = Math.floor(c.N / 1000);
  while (suspended.size < S && suspended.size + kept.size < c.N) {
    const u = rng.int(c.N);
    if (!kept.has(u)) suspended.add(u);
  }
  const blockers = [READER];
  const B = Math.max(1, Math.floor(c.N / 100));
  for (let tries = 0; blockers.length < B && tries < B * 20; tries++) {
    const u = rng.int(c.N);
    if (!suspended.has(u) && !blockers.includes(u)) blockers.push(u);
  }

  const insert = db.prepare<[number, number, number]>(
    'INSERT INTO blocks (blocker_id, blocked_id, via_anonymous_post, created_at) VALUES (?, ?, 0, ?)',
  );
  const countBoth = db.prepare<[number, number]>('UPDATE users SET block_count = block_count + 1 WHERE id IN (?, ?)');
  const unfollow = db.prepare<{ follower: number; followee: number }, number>(
    'DELETE FROM follows WHERE follower_id = @follower AND followee_id = @followee RETURNING 1',
  ).pluck();
  const uncountFollow = db.prepare<{ follower: number; followee: number }>(`
    UPDATE users SET
      follower_count = follower_count - (id = @followee),
      following_count = following_count - (id = @follower)
    WHERE id IN (@follower, @followee)`);
  let blocks = 0;
  for (const blocker of blockers) {
    const chosen = new Set<number>();
    for (let tries = 0; chosen.size < 20 && tries < 400; tries++) {
      const v = c.postSample();
      if (v === blocker || suspended.has(v) || chosen.has(v)) continue;
      // The bench's requests are the reader's: nobody blocks it, and it keeps the people it follows and views.
      if (v === READER || (blocker === READER && (kept.has(v) || readerFollows.has(v)))) continue;
      chosen.add(v);
    }
    for (const v of chosen) {
      const since = Math.max(c.userCreated[blocker]!, c.userCreated[v]!);
      insert.run(blocker + 1, v + 1, Math.floor(since + rng.next() * (span.end - since)));
      countBoth.run(blocker + 1, v + 1);
      for (const [follower, followee] of [[blocker + 1, v + 1], [v + 1, blocker + 1]] as const) {
        if (unfollow.get({ follower, followee }) !== undefined) uncountFollow.run({ follower, followee });
      }
      blocks++;
    }
  }

  const invites = createInvitesRepository(db);
  const steps = createSuspensionSteps(db, createCounters(db), createPersonSteps(db), (user, at) => invites.revokeAllBy(user, 'maker_suspended', at));
  for (const u of suspended) {
    steps.suspend(u + 1, 'Spam (seeded)', Math.floor(span.end - rng.next() * 30 * DAY));
  }
  return { blocks, suspended: suspended.size };
}

/** The remote people the bench reader follows: the most prolific ones. */
const READER_FOLLOWS_REMOTE = 20;

/**
 * People of other servers as federation keeps them (remote-actors.ts, remote-posts.ts): users rows
 * with `host` set and `username` name@host, their actor in remote_actors, their posts ordinary
 * posts with a remote_posts row, follows either way ordinary follows with a federation_follows row.
 * Every one of them follows one local person who posts (the fan-out's author); one host in four
 * offers no shared inbox (each follower's own inbox then). Their posts are spread over the year
 * like ours, written by a few prolific people more than by the rest, and kept only because
 * someone here follows their author (remote-posts-repository.ts, followedHere): each is followed
 * by one to three local people, the reader among them for the most prolific ones. Local people
 * like and comment on them. Drawn from a generator of its own, after every local row, so the
 * local community is format 8's row for row; run inside the seed's bulk load, before the
 * notifications are counted. Hosts are placeholders (`r001.bench.test`): the bench binds them to
 * loopback listeners before federation is measured (scripts/bench/federation.ts).
 */
function insertRemote(
  db: Database.Database,
  c: Community,
  span: TimeSpan,
  media: SharedMedia[],
  sizes: { servers: number; followers: number; posts: number },
  rng: Rng,
): RemoteSeed {
  const R = sizes.followers;
  const S = Math.max(1, Math.min(sizes.servers, R));
  const hosts = Array.from({ length: S }, (_, i) => `r${String(i + 1).padStart(3, '0')}.bench.test`);
  const shared = (server: number) => server % 4 !== 3;
  const live = db.prepare<[], number>('SELECT id FROM users WHERE suspended_at IS NULL AND id <> 1 ORDER BY id').pluck().all();
  let author = -1;
  for (let rank = 1; rank < c.N && author < 0; rank++) {
    const u = c.fame[rank]!;
    if (u !== READER && c.publicCount[u]! > 0 && live.includes(u + 1)) author = u;
  }
  if (author < 0) throw new Error('no local person who posts to be followed from other servers');
  const authorId = author + 1;
  const firstId = db.prepare<[], number>('SELECT max(id) FROM users').pluck().get()! + 1;
  const serverOf = (r: number) => r % S;
  const nameOf = (r: number) => `${rng.pick(ADJECTIVES)}${rng.pick(NOUNS)}${r + 1}`;
  const names = Array.from({ length: R }, (_, r) => nameOf(r));
  const actor = (r: number) => `https://${hosts[serverOf(r)]}/users/${names[r]}`;

  // Their posts: times over the year, authors skewed towards the first people.
  const P = sizes.posts;
  const times = Array.from({ length: P }, () => Math.floor(span.start + rng.next() * (span.end - span.start - 60_000))).sort((a, b) => a - b);
  const authorOf = Array.from({ length: P }, () => Math.floor(R * rng.next() ** 2));
  const postCount = new Int32Array(R);
  for (const a of authorOf) postCount[a]!++;
  const joined = (r: number) => span.start - DAY - r * 60_000;

  // Who follows them here: one to three local people each, and the reader the most prolific.
  const byPosts = Array.from({ length: R }, (_, r) => r).sort((a, b) => postCount[b]! - postCount[a]! || a - b);
  const readerFollows = new Set(byPosts.slice(0, Math.min(READER_FOLLOWS_REMOTE, R)));
  const localFollowers: number[][] = Array.from({ length: R }, (_, r) => {
    const chosen = new Set<number>(readerFollows.has(r) ? [READER + 1] : []);
    const k = 1 + rng.int(3);
    while (chosen.size < k + (readerFollows.has(r) ? 1 : 0)) chosen.add(live[rng.int(live.length)]!);
    return [...chosen];
  });

  const usersIns = inserter(db, 'users', ['id', 'sub', 'username', 'created_at', 'host', 'post_count', 'public_post_count', 'follower_count', 'following_count']);
  const actorsIns = inserter(db, 'remote_actors', ['user_id', 'uri', 'inbox', 'shared_inbox', 'url', 'manually_approves_followers', 'fetched_at']);
  for (let r = 0; r < R; r++) {
    const host = hosts[serverOf(r)]!;
    for (const v of [firstId + r, `~remote:${actor(r)}`, `${names[r]}@${host}`, joined(r), host, postCount[r], postCount[r], localFollowers[r]!.length, 1]) usersIns.push(v);
    const sharedInbox = shared(serverOf(r)) ? `https://${host}/inbox` : null;
    for (const v of [firstId + r, actor(r), `${actor(r)}/inbox`, sharedInbox, `https://${host}/@${names[r]}`, 0, span.end]) actorsIns.push(v);
  }
  usersIns.finish();
  actorsIns.finish();

  const followsIns = inserter(db, 'follows', ['follower_id', 'followee_id', 'created_at']);
  const fedIns = inserter(db, 'federation_follows', ['follower_id', 'followee_id', 'activity_uri']);
  const following = new Map<number, number>();
  for (let r = 0; r < R; r++) {
    const at = Math.floor(joined(r) + rng.next() * (span.end - joined(r)));
    for (const v of [firstId + r, authorId, at]) followsIns.push(v);
    for (const v of [firstId + r, authorId, `${actor(r)}#follows/${authorId}`]) fedIns.push(v);
    for (const local of localFollowers[r]!) {
      const since = Math.floor(joined(r) + rng.next() * (span.end - joined(r)));
      for (const v of [local, firstId + r, since]) followsIns.push(v);
      for (const v of [local, firstId + r, `https://shower-beer.bench.test/users/${local}#follows/${firstId + r}/${since}`]) fedIns.push(v);
      following.set(local, (following.get(local) ?? 0) + 1);
    }
  }
  followsIns.finish();
  fedIns.finish();
  db.prepare('UPDATE users SET follower_count = follower_count + ? WHERE id = ?').run(R, authorId);
  const addFollowing = db.prepare<[number, number]>('UPDATE users SET following_count = following_count + ? WHERE id = ?');
  for (const [local, n] of following) addFollowing.run(n, local);

  // The posts, their likes and comments by local people, then their addresses (remote_posts: kept
  // after the likes and comments, whose triggers would otherwise queue them for delivery).
  const firstPost = db.prepare<[], number>('SELECT max(id) FROM posts').pluck().get()! + 1;
  let commentId = db.prepare<[], number>('SELECT coalesce(max(id), 0) FROM comments').pluck().get()!;
  const postsIns = inserter(db, 'posts', ['id', 'user_id', 'caption', 'media_key', 'width', 'height', 'like_count', 'comment_count', 'created_at']);
  const tagsIns = inserter(db, 'post_hashtags', ['tag', 'post_id', 'created_at']);
  const likesIns = inserter(db, 'likes', ['post_id', 'user_id', 'created_at', 'recipient_id'], 400);
  const commentsIns = inserter(db, 'comments', ['id', 'post_id', 'user_id', 'content', 'created_at', 'recipient_id']);
  const received = { likes: new Int32Array(R), comments: new Int32Array(R) };
  for (let i = 0; i < P; i++) {
    const r = authorOf[i]!;
    const id = firstPost + i;
    const m = media[rng.int(media.length)]!;
    const text = caption(rng.pick);
    const likers = new Set<number>();
    for (let k = rng.int(6); likers.size < k; ) likers.add(live[rng.int(live.length)]!);
    const comments = rng.int(3);
    for (const v of [id, firstId + r, text, m.key, m.width, m.height, likers.size, comments, times[i]]) postsIns.push(v);
    for (const tag of tagsOf(text)) for (const v of [tag, id, times[i]]) tagsIns.push(v);
    for (const u of [...likers].sort((a, b) => a - b)) {
      for (const v of [id, u, Math.floor(Math.min(span.end, times[i]! + rng.exp(DAY))), firstId + r]) likesIns.push(v);
    }
    for (let k = 0; k < comments; k++) {
      const by = live[rng.int(live.length)]!;
      for (const v of [++commentId, id, by, rng.pick(COMMENTS), Math.floor(Math.min(span.end, times[i]! + rng.exp(DAY / 4))), firstId + r]) commentsIns.push(v);
    }
    received.likes[r]! += likers.size;
    received.comments[r]! += comments;
  }
  postsIns.finish();
  tagsIns.finish();
  likesIns.finish();
  commentsIns.finish();
  const addReceived = db.prepare<[number, number, number]>('UPDATE users SET likes_received = ?, comments_received = ? WHERE id = ?');
  for (let r = 0; r < R; r++) addReceived.run(received.likes[r]!, received.comments[r]!, firstId + r);
  const remoteIns = inserter(db, 'remote_posts', ['post_id', 'uri', 'is_public']);
  for (let i = 0; i < P; i++) for (const v of [firstPost + i, `${actor(authorOf[i]!)}/statuses/${firstPost + i}`, 1]) remoteIns.push(v);
  remoteIns.finish();

  const authorName = db.prepare<[number], string>('SELECT username FROM users WHERE id = ?').pluck().get(authorId)!;
  return {
    hosts,
    sharedInboxHosts: hosts.filter((_, i) => shared(i)).length,
    people: R,
    posts: P,
    federated: { id: authorId, sub: `seed-${authorId}`, username: authorName, email: `${authorName}@example.test`, remoteFollowers: R },
    readerFollowsRemote: readerFollows.size,
    userIds: [firstId, firstId + R - 1],
  };
}

/** Counts the moderation step may have moved, read back from the rows. */
function readFinalCounts(db: Database.Database, c: Community) {
  let celebrity = 0;
  for (let u = 1; u < c.N; u++) if (c.followerCount[u]! > c.followerCount[celebrity]!) celebrity = u;
  const counts = db.prepare<[number], { following: number; followers: number }>(
    'SELECT following_count AS following, follower_count AS followers FROM users WHERE id = ?',
  );
  return {
    readerFollowing: counts.get(READER + 1)!.following,
    celebrity,
    celebrityFollowers: counts.get(celebrity + 1)!.followers,
    follows: db.prepare<[], number>('SELECT count(*) FROM follows').pluck().get()!,
  };
}

/** Keeps the statistics the server should plan with, and leaves the database as the server opens it (WAL, normal locking). */
function analyzeAndClose(handle: ReturnType<typeof openDatabase>, analyze: boolean) {
  const db = handle.sqlite;
  if (analyze) {
    // stat1 only: with sqlite_stat4 better-sqlite3 re-prepares statements on
    // every call (+35-40% per query, measured) and some plans turn value-dependent.
    db.exec('ANALYZE');
  }
  dropStat4(db);
  db.pragma('locking_mode = NORMAL');
  db.pragma('journal_mode = WAL');
  db.prepare('SELECT 1 FROM users LIMIT 1').get(); // releases the exclusive lock
  handle.close();
}

/** What the bench needs to know about the seeded set (seed.json). */
function describeSeed(
  opts: SeedOptions,
  span: TimeSpan,
  c: Community,
  made: {
    usernames: string[];
    pictures: number;
    likes: number;
    comments: number;
    media: SharedMedia[];
    clock: PhaseClock;
    moderation: { blocks: number; suspended: number };
    finalCounts: ReturnType<typeof readFinalCounts>;
  },
  rng: Rng,
): SeedInfo {
  const { N, P } = c;
  const { usernames, finalCounts } = made;
  const { celebrity } = finalCounts;
  const someUsernames: string[] = [];
  for (let rank = 0; someUsernames.length < Math.min(200, N - 1) && rank < N; rank++) {
    const u = c.fame[rank]!;
    if (u !== READER) someUsernames.push(usernames[u]!);
  }
  const prefixes = new Set<string>();
  for (let j = 0; j < 40 && prefixes.size < 20; j++) prefixes.add(usernames[1 + rng.int(N - 1)]!.slice(0, 3));

  return {
    format: SEED_FORMAT,
    options: {
      users: N,
      posts: P,
      likes: opts.likes,
      comments: opts.comments,
      follows: opts.follows,
      seed: opts.seed,
      readerFollows: opts.readerFollows,
      mediaCount: opts.mediaCount,
      analyze: opts.analyze,
      now: span.end,
      ...(opts.remote && { remote: opts.remote }),
    },
    // Likes and comments as drawn; some of them belong to suspended accounts and count for nobody.
    counts: {
      users: N,
      posts: P,
      profilePictures: made.pictures,
      likes: made.likes,
      comments: made.comments,
      follows: finalCounts.follows,
      blocks: made.moderation.blocks,
      suspended: made.moderation.suspended,
    },
    seconds: made.clock.seconds(),
    cpuSeconds: made.clock.cpuSeconds(),
    phases: made.clock.phases,
    reader: {
      id: READER + 1,
      sub: `seed-${READER + 1}`,
      username: usernames[READER]!,
      email: `${usernames[READER]!}@example.test`,
      following: finalCounts.readerFollowing,
      postCount: c.postCount[READER]!,
    },
    celebrity: {
      id: celebrity + 1,
      username: usernames[celebrity]!,
      publicPostCount: c.publicCount[celebrity]!,
      followerCount: finalCounts.celebrityFollowers,
    },
    someUsernames,
    searchPrefixes: [...prefixes],
    media: made.media,
    postIds: [1, P],
  };
}

function dropStat4(db: Database.Database) {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat4'").get();
  if (!has) return;
  try {
    db.exec('DROP TABLE sqlite_stat4');
  } catch {
    db.exec('DELETE FROM sqlite_stat4');
  }
}

/**
 * Recomputes every counter and uniqueness rule from the rows (slow: for
 * checking a seeded set, not for the bench). Returns the problems found.
 */
export function verifySeed(dbFile: string): string[] {
  const handle = openDatabase(dbFile, join(findAppRoot(), 'migrations'));
  const db = handle.sqlite;
  const problems: string[] = [];
  const check = (what: string, sql: string) => {
    const row = db.prepare<[], { n: number }>(sql).get();
    if (row && row.n !== 0) problems.push(`${what}: ${row.n}`);
  };
  // A suspended account's likes, comments and follows count for nobody (people/suspension.ts).
  const active = (column: string) => `(SELECT suspended_at FROM users WHERE id = ${column}) IS NULL`;
  try {
    check(
      'posts.like_count wrong',
      `SELECT count(*) AS n FROM posts p
       WHERE like_count <> (SELECT count(*) FROM likes l WHERE post_id = p.id AND ${active('l.user_id')})`,
    );
    check(
      'posts.comment_count wrong',
      `SELECT count(*) AS n FROM posts p
       WHERE comment_count <> (SELECT count(*) FROM comments c WHERE post_id = p.id AND ${active('c.user_id')})`,
    );
    check(
      'users.post_count / public_post_count wrong',
      `SELECT count(*) AS n FROM users u WHERE
         post_count <> (SELECT count(*) FROM posts WHERE user_id = u.id AND is_profile_picture = 0)
         OR public_post_count <> (SELECT count(*) FROM posts WHERE user_id = u.id AND is_profile_picture = 0 AND is_anonymous = 0)`,
    );
    check(
      'users.likes_received / comments_received wrong',
      `SELECT count(*) AS n FROM users u WHERE
         likes_received <> (SELECT coalesce(sum(like_count), 0) FROM posts WHERE user_id = u.id AND is_profile_picture = 0)
         OR comments_received <> (SELECT coalesce(sum(comment_count), 0) FROM posts WHERE user_id = u.id AND is_profile_picture = 0)`,
    );
    check(
      'users.follower_count / following_count wrong',
      `SELECT count(*) AS n FROM users u WHERE
         follower_count <> (SELECT count(*) FROM follows f WHERE followee_id = u.id AND ${active('f.follower_id')})
         OR following_count <> (SELECT count(*) FROM follows f WHERE follower_id = u.id AND ${active('f.followee_id')})`,
    );
    check(
      'users.block_count wrong',
      `SELECT count(*) AS n FROM users u WHERE block_count <>
         (SELECT count(*) FROM blocks WHERE blocker_id = u.id) + (SELECT count(*) FROM blocks WHERE blocked_id = u.id)
           + (SELECT count(*) FROM server_mutes WHERE user_id = u.id)`,
    );
    check(
      'follows between people who block each other',
      `SELECT count(*) AS n FROM blocks b
       WHERE EXISTS (SELECT 1 FROM follows WHERE follower_id = b.blocker_id AND followee_id = b.blocked_id)
          OR EXISTS (SELECT 1 FROM follows WHERE follower_id = b.blocked_id AND followee_id = b.blocker_id)`,
    );
    check(
      'posts or comments hidden other than by suspension',
      `SELECT (SELECT count(*) FROM posts p WHERE hidden <> (NOT (${active('p.user_id')})))
            + (SELECT count(*) FROM comments c WHERE hidden <> (NOT (${active('c.user_id')}))) AS n`,
    );
    check('self-follows', 'SELECT count(*) AS n FROM follows WHERE follower_id = followee_id');
    check('profile pictures not in users', `SELECT count(*) AS n FROM users u WHERE profile_picture_key IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM posts WHERE user_id = u.id AND is_profile_picture = 1 AND media_key = u.profile_picture_key)`);
    const fk = db.pragma('foreign_key_check') as unknown[];
    if (fk.length > 0) problems.push(`foreign key violations: ${fk.length}`);
    const integrity = db.pragma('quick_check', { simple: true });
    if (integrity !== 'ok') problems.push(`quick_check: ${String(integrity)}`);
    const stat4 = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat4'").get();
    if (stat4 && db.prepare('SELECT 1 FROM sqlite_stat4 LIMIT 1').get()) problems.push('sqlite_stat4 has rows');
    const mode = db.pragma('journal_mode', { simple: true });
    if (mode !== 'wal') problems.push(`journal_mode is ${String(mode)}`);
  } finally {
    handle.close();
  }
  return problems;
}
