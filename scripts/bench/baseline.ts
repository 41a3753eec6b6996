// `npm run bench -- --baseline <git ref> [--scale small|reference] [--rounds N] [--duration S]`
//
// This tree against a fixed point, in one run. Each change is measured against the step before it
// with a run-to-run spread (10-20%) larger than the step itself, so drift can add up unseen; a
// ratio measured side by side, round after round, shows it.
//
// 1. The ref is checked out in a temporary `git worktree` outside the repository (kept, so a second
//    run reuses it) with its own `npm ci` and its own server build.
// 2. Each tree seeds its own data set at the same scale with its own seed code
//    (scripts/bench/seed-lib.ts of that tree, the same options), in its own bench-data/, and
//    every run starts from it as seeded (scripts/bench/pristine.ts): the write rows of earlier
//    runs are not carried into the next.
// 3. Both built servers run at once. Each round measures the constant 20-post page (the HTTP
//    ceiling), then every row on one tree and then the other, the order swapped every round, so
//    whatever else the machine does falls on both alike.
// 4. It prints each row's medians for both trees and the ratio this/baseline with its spread over
//    the rounds (lowest–highest): rps, CPU µs per request, and each feed's share of the constant page.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon, { type AutocannonRequest, type Result } from 'autocannon';
import Database from 'better-sqlite3';
import { benchServerEnv, cpuMicros, freePort, repoRoot, startNode, type Running } from './processes.js';
import { measureFloor } from './floor.js';
import { hasPristineCopy, restoreOrKeepPristine } from './pristine.js';
import { comment, cycle, followUnfollow, get, likeUnlike, median } from './requests.js';

export interface BaselineOptions {
  ref: string;
  /** The data set's sizes, as scripts/bench.ts's SETS give them. */
  set: { name: string; users: number; posts: number; likes: number; comments: number; follows: number; remote?: { servers: number; followers: number; posts: number } };
  rounds: number;
  duration: number;
  connections: number;
  log: (line: string) => void;
  /** More environment for this tree's server (bench --federation on: FEDERATION=on). */
  currentEnv?: Record<string, string>;
}

interface Tree {
  label: string;
  dir: string;
  commit: string;
}

interface Side {
  tree: Tree;
  /** The data set's database and its reader, for the floor's blocks cost. */
  dbFile: string;
  readerId: number;
  running: Running;
  token: string;
  /** The second page's cursor of the reader's Following feed. */
  followingCursor?: string;
  hasNotifications: boolean;
  pools: { unliked: number[]; unfollowed: string[] };
}

interface Sample {
  rps: number;
  cpuUs: number;
  bad: number;
}

const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
const run = (cmd: string, args: string[], cwd: string) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });

/** The ref's checkout with its dependencies and built server, made once per commit. */
function prepareBaselineTree(ref: string, log: (line: string) => void): Tree {
  const commit = git('rev-parse', '--verify', `${ref}^{commit}`);
  const dir = join(tmpdir(), `shower-beer-baseline-${commit.slice(0, 12)}`);
  if (!existsSync(join(dir, 'package.json'))) {
    log(`Checking out ${ref} (${commit.slice(0, 12)}) in ${dir}`);
    git('worktree', 'prune');
    git('worktree', 'add', '--detach', '--force', dir, commit);
  }
  if (!existsSync(join(dir, 'node_modules', '.package-lock.json'))) {
    log(`npm ci in ${dir} (its own lockfile; better-sqlite3 compiles, about a minute)`);
    run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], dir);
  }
  buildServer(dir, log);
  return { label: `${ref} (${commit.slice(0, 7)})`, dir, commit };
}

function buildServer(dir: string, log: (line: string) => void): void {
  log(`Building the server in ${dir}`);
  run('npm', ['run', 'build', '-w', 'server', '--silent'], dir);
}

/** Runs a module of ours in another tree's checkout, so that tree's own code does the work. */
function inTree(tree: Tree, name: string, source: string, env: Record<string, string>): string {
  const dir = join(tmpdir(), 'shower-beer-bench-snippets');
  mkdirSync(dir, { recursive: true });
  // .mts: an ES module wherever it lies (no package.json with "type" above it).
  const file = join(dir, `${name}-${tree.commit.slice(0, 12)}.mts`);
  // @KERNEL@: where that tree keeps config and auth (server/src/kernel/ since the one-pattern layout, server/src/ before).
  const kernel = existsSync(join(tree.dir, 'server', 'src', 'kernel', 'config.ts')) ? 'server/src/kernel' : 'server/src';
  writeFileSync(file, source.replaceAll('@KERNEL@', `${tree.dir}/${kernel}`).replaceAll('@TREE@', tree.dir));
  return execFileSync(process.execPath, ['--import', 'tsx', file], {
    cwd: tree.dir,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  }).trim();
}

// Seeds (or reuses) the tree's data set with that tree's seed-lib; prints its seed.json.
const SEED = `
import { readSeedInfo, seedDataDir, SEED_FORMAT } from '@TREE@/scripts/bench/seed-lib.ts';
const want = JSON.parse(process.env.WANT!);
const dir = process.env.DATA!;
const have = readSeedInfo(dir);
// Other servers' people (format 9 on): compared only where this tree's seed makes them.
const same = have && have.format === SEED_FORMAT && ['users', 'posts', 'likes', 'comments', 'follows'].every((k) => (have.options as any)[k] === want[k])
  && (SEED_FORMAT < 9 || JSON.stringify((have.options as any).remote) === JSON.stringify(want.remote));
if (!same) {
  console.error('seeding ' + dir + ' with this tree\\'s seed-lib (format ' + SEED_FORMAT + ')');
  await seedDataDir({ ...want, dataDir: dir, seed: 1, readerFollows: 200, mediaCount: 6, analyze: true, force: true, log: (l: string) => console.error('  ' + l) });
}
console.log(JSON.stringify(readSeedInfo(dir)));
`;

// A token for the data set's reader, made by that tree's own provider code and signing key.
const TOKEN = `
import { issueAccessToken } from '@KERNEL@/auth/issue.ts';
import { loadOrCreateSigningKey } from '@KERNEL@/auth/keys.ts';
import { loadConfig } from '@KERNEL@/config.ts';
const env = JSON.parse(process.env.SERVER_ENV!);
const reader = JSON.parse(process.env.READER!);
const config = loadConfig(env);
const key = await loadOrCreateSigningKey(env.DATA_DIR);
console.log(await issueAccessToken(key, config.auth, { sub: reader.sub, username: reader.username, email: reader.email }, 4 * 3600));
`;

interface Reader {
  id: number;
  sub: string;
  username: string;
  email: string;
}

/** Posts to like and people to follow, from whatever schema the tree has (blocks and suspensions came later). */
function writePools(dbFile: string, readerId: number) {
  const db = new Database(dbFile, { readonly: true });
  try {
    const has = (table: string, column?: string) =>
      column
        ? (db.prepare(`SELECT 1 FROM pragma_table_info(?) WHERE name = ?`).get(table, column) ?? null) !== null
        : (db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table) ?? null) !== null;
    const blocks = has('blocks');
    const postBlock = blocks
      ? `AND NOT EXISTS (SELECT 1 FROM blocks WHERE (blocker_id = @reader AND blocked_id = p.user_id) OR (blocker_id = p.user_id AND blocked_id = @reader))`
      : '';
    const userBlock = blocks
      ? `AND NOT EXISTS (SELECT 1 FROM blocks WHERE (blocker_id = @reader AND blocked_id = u.id) OR (blocker_id = u.id AND blocked_id = @reader))`
      : '';
    // Local posts and people only: a like of another server's post, or a follow of one of its
    // people, is delivered there (federation/); a tree without federation has none of either.
    const remotePosts = has('remote_posts');
    const unliked = db
      .prepare<{ reader: number }, number>(
        // The middle of the timeline: the likes and comments must not change the first Discover page.
        `SELECT id FROM posts p WHERE is_profile_picture = 0 ${has('posts', 'hidden') ? 'AND hidden = 0' : ''}
         AND id < (SELECT max(id) / 2 FROM posts ${remotePosts ? 'WHERE id NOT IN (SELECT post_id FROM remote_posts)' : ''})
         ${remotePosts ? 'AND NOT EXISTS (SELECT 1 FROM remote_posts WHERE post_id = p.id)' : ''}
         AND NOT EXISTS (SELECT 1 FROM likes WHERE post_id = p.id AND user_id = @reader) ${postBlock}
         ORDER BY id DESC LIMIT 5000`,
      )
      .pluck()
      .all({ reader: readerId });
    const unfollowed = db
      .prepare<{ reader: number }, string>(
        `SELECT username FROM users u WHERE id <> @reader ${has('users', 'host') ? 'AND host IS NULL' : ''} ${has('users', 'deleted_at') ? 'AND deleted_at IS NULL' : ''}
         ${has('users', 'suspended_at') ? 'AND suspended_at IS NULL' : ''}
         AND NOT EXISTS (SELECT 1 FROM follows WHERE follower_id = @reader AND followee_id = u.id) ${userBlock}
         ORDER BY id LIMIT 2000`,
      )
      .pluck()
      .all({ reader: readerId });
    return { unliked, unfollowed };
  } finally {
    db.close();
  }
}

async function startSide(tree: Tree, set: BaselineOptions['set'], log: (line: string) => void, extraEnv: Record<string, string> = {}): Promise<Side> {
  const data = join(tree.dir, 'bench-data', set.name);
  mkdirSync(data, { recursive: true });
  const { name: _name, ...want } = set;
  // A set without its copy as seeded has been written to by runs before this one: seeded again.
  if (!hasPristineCopy(data)) rmSync(join(data, 'seed.json'), { force: true });
  const infoText = inTree(tree, 'seed', SEED, { WANT: JSON.stringify(want), DATA: data });
  restoreOrKeepPristine(data, infoText, log);
  const info = JSON.parse(infoText) as { reader: Reader; seconds: number };
  log(`  ${tree.label}: data set in ${data} (seeded in ${info.seconds.toFixed(0)} s)`);
  const port = await freePort();
  const env = { ...benchServerEnv(data, port), ...extraEnv };
  const token = inTree(tree, 'token', TOKEN, { SERVER_ENV: JSON.stringify(env), READER: JSON.stringify(info.reader) });
  // The server applies its own migrations at start; the pools are read after that.
  const running = await startNode('server/dist/server.js', env, port, '/healthz', { nodeArgs: [], cwd: tree.dir, readyWithinMs: 300_000 });
  const pools = writePools(join(data, 'shower-beer.db'), info.reader.id);
  const ask = (path: string) => fetch(running.url + path, { headers: { authorization: `Bearer ${token}` } });
  const following = (await (await ask('/api/followFeed')).json()) as { cursor?: string }[];
  const notifications = await ask('/api/notifications');
  return {
    tree,
    dbFile: join(data, 'shower-beer.db'),
    readerId: info.reader.id,
    running,
    token,
    followingCursor: Array.isArray(following) ? following.at(-1)?.cursor : undefined,
    hasNotifications: notifications.status === 200,
    pools,
  };
}

/**
 * This tree's feed targets (issue 36), from the rounds just run: each feed's share of the
 * constant page, the Notifications page's CPU against Discover's, and what the reader's
 * blocks cost a page below HTTP (scripts/bench/floor.ts, alternating batches).
 */
async function currentTargets(side: Side, samples: Map<string, Sample[][]>, shares: Map<string, number[][]>): Promise<string[]> {
  const share = (row: string) => median(shares.get(row)?.[0] ?? [NaN]);
  const cpu = (row: string) => median((samples.get(row)?.[0] ?? []).map((s) => s.cpuUs));
  const pass = (ok: boolean) => (ok ? '**PASS**' : '**FAIL**');
  const lines = ['| This tree\'s target | Measured | Verdict |', '|---|---|---|'];
  for (const [row, min] of [['Discover page', 0.6], ['Following feed page', 0.5]] as const) {
    lines.push(`| ${row} ≥ ${min * 100}% of the constant page | ${fmt(share(row) * 100)}% (median of the rounds) | ${pass(share(row) >= min)} |`);
  }
  const [n, d] = [cpu('Notifications page'), cpu('Discover page')];
  if (!Number.isNaN(n)) lines.push(`| Notifications page ≤ 2× a Discover page's CPU | ${fmt(n)} vs ${fmt(d)} µs/req = ${fmt(n / d, 2)}× | ${pass(n <= 2 * d)} |`);
  const floor = await measureFloor(side.dbFile, side.readerId, 'hop');
  for (const [name, pair] of [['Discover', floor.blocksCost?.discover], ['Following (page 2)', floor.blocksCost?.following]] as const) {
    if (!pair) continue;
    const [withBlocks, without] = pair;
    lines.push(
      `| ${name}: ${floor.blocksCost!.blocks} blocks cost ≤ 10% more per page | ${fmt(withBlocks)} vs ${fmt(without)} µs below HTTP (${withBlocks >= without ? '+' : ''}${fmt(((withBlocks - without) / without) * 100)}%) | ${pass(withBlocks <= without * 1.1)} |`,
    );
  }
  return lines;
}

interface Row {
  name: string;
  /** The requests, or null when the tree has no such route. */
  requests: (side: Side) => AutocannonRequest[] | null;
  /** A feed: also reported as a share of the constant page. */
  feed?: boolean;
}

const ROWS: Row[] = [
  { name: 'Discover page', feed: true, requests: (s) => [get('/api/discover-posts', s.token)] },
  { name: 'Following feed page', feed: true, requests: (s) => [get('/api/followFeed', s.token)] },
  {
    name: 'Following feed page 2 (a cursor)',
    requests: (s) => (s.followingCursor ? [get(`/api/followFeed?cursor=${encodeURIComponent(s.followingCursor)}`, s.token)] : null),
  },
  { name: 'Notifications page', requests: (s) => (s.hasNotifications ? [get('/api/notifications', s.token)] : null) },
  { name: 'Like + unlike (a pair)', requests: (s) => likeUnlike(s.token, cycle(s.pools.unliked)) },
  { name: 'Comment', requests: (s) => comment(s.token, cycle(s.pools.unliked)) },
  { name: 'Follow + unfollow (a pair)', requests: (s) => followUnfollow(s.token, cycle(s.pools.unfollowed)) },
];

function summarize(r: Result, cpu: number): Sample {
  return { rps: r.requests.total / r.duration, cpuUs: r.requests.total > 0 ? cpu / r.requests.total : NaN, bad: r.non2xx + r.errors + r.timeouts };
}

async function measure(url: string, pid: number, requests: AutocannonRequest[], opts: BaselineOptions): Promise<Sample> {
  const before = cpuMicros(pid);
  const result = await autocannon({ url, connections: opts.connections, duration: opts.duration, requests, timeout: 30 });
  return summarize(result, cpuMicros(pid) - before);
}

const fmt = (x: number, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : '—');
const spread = (xs: number[]) => (xs.length ? `${fmt(Math.min(...xs), 2)}–${fmt(Math.max(...xs), 2)}` : '—');

export async function runBaseline(opts: BaselineOptions): Promise<void> {
  const { log } = opts;
  const current: Tree = { label: `this tree (${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain') ? ', with changes' : ''})`, dir: repoRoot, commit: 'current' };
  const baseline = prepareBaselineTree(opts.ref, log);
  buildServer(repoRoot, log);
  log(`Seeding or reusing the ${opts.set.name} set in each tree (${opts.set.posts} posts):`);
  const sides: Side[] = [];
  let constant: Running | null = null;
  try {
    for (const tree of [current, baseline]) sides.push(await startSide(tree, opts.set, log, tree === current ? opts.currentEnv : {}));
    // The constant page replays this tree's real Discover answer, as the plain bench does.
    const page = await (await fetch(`${sides[0]!.running.url}/api/discover-posts`, { headers: { authorization: `Bearer ${sides[0]!.token}` } })).json();
    const pageFile = join(tmpdir(), 'shower-beer-bench-snippets', 'constant-page.json');
    writeFileSync(pageFile, JSON.stringify(page));
    const cport = await freePort();
    constant = await startNode('scripts/bench/constant-server.ts', { PORT: String(cport), PAGE_FILE: pageFile }, cport, '/healthz');
    // Warm-up: JIT, caches, page cache, for both.
    for (const side of sides) for (const row of ROWS.slice(0, 2)) await measure(side.running.url, side.running.pid, row.requests(side)!, { ...opts, duration: 2 });

    const samples = new Map<string, Sample[][]>(); // row → [current samples, baseline samples]
    const constantSamples: Sample[] = [];
    const shares = new Map<string, number[][]>();
    for (let round = 1; round <= opts.rounds; round++) {
      const c = await measure(constant.url, constant.pid, [{ method: 'GET', path: '/page' }], opts);
      constantSamples.push(c);
      const order = round % 2 ? [0, 1] : [1, 0];
      const parts: string[] = [`constant ${fmt(c.rps)} req/s`];
      for (const i of order) {
        const side = sides[i]!;
        for (const row of ROWS) {
          const requests = row.requests(side);
          if (!requests) continue;
          const s = await measure(side.running.url, side.running.pid, requests, opts);
          const perRow = samples.get(row.name) ?? [[], []];
          perRow[i]!.push(s);
          samples.set(row.name, perRow);
          if (row.feed) {
            const sh = shares.get(row.name) ?? [[], []];
            sh[i]!.push(s.rps / c.rps);
            shares.set(row.name, sh);
          }
        }
        parts.push(`${i === 0 ? 'this' : 'baseline'} done`);
      }
      log(`  round ${round}/${opts.rounds}: ${parts.join(', ')}`);
    }

    const lines = [
      `Baseline ${baseline.label} against ${current.label}${opts.currentEnv?.FEDERATION === 'on' ? ' with FEDERATION=on' : ''}; ${opts.set.name} set, ${opts.rounds} rounds of ${opts.duration} s per row, ${opts.connections} connections.`,
      `Constant 20-post page: median ${fmt(median(constantSamples.map((s) => s.rps)))} req/s (rounds ${spread(constantSamples.map((s) => s.rps / 1000))} k).`,
      '',
      '| Row | this req/s | baseline req/s | ratio (spread) | this CPU µs/req | baseline CPU µs/req | CPU ratio (spread) |',
      '|---|---|---|---|---|---|---|',
    ];
    for (const row of ROWS) {
      const [mine = [], theirs = []] = samples.get(row.name) ?? [];
      if (mine.length === 0 && theirs.length === 0) continue;
      const paired = Math.min(mine.length, theirs.length);
      const rpsRatios = Array.from({ length: paired }, (_, k) => mine[k]!.rps / theirs[k]!.rps);
      const cpuRatios = Array.from({ length: paired }, (_, k) => mine[k]!.cpuUs / theirs[k]!.cpuUs);
      const bad = (xs: Sample[]) => xs.reduce((n, s) => n + s.bad, 0);
      const badNote = bad(mine) + bad(theirs) ? ` (non-2xx: this ${bad(mine)}, baseline ${bad(theirs)})` : '';
      lines.push(
        `| ${row.name}${badNote} | ${mine.length ? fmt(median(mine.map((s) => s.rps))) : 'no route'} | ${theirs.length ? fmt(median(theirs.map((s) => s.rps))) : 'no route'} | ` +
          `${paired ? `${fmt(median(rpsRatios), 2)} (${spread(rpsRatios)})` : '—'} | ${mine.length ? fmt(median(mine.map((s) => s.cpuUs))) : '—'} | ` +
          `${theirs.length ? fmt(median(theirs.map((s) => s.cpuUs))) : '—'} | ${paired ? `${fmt(median(cpuRatios), 2)} (${spread(cpuRatios)})` : '—'} |`,
      );
    }
    lines.push('', '| Feed, share of the constant page | this | baseline |', '|---|---|---|');
    for (const [name, [mine = [], theirs = []]] of shares) {
      const pct = (xs: number[]) => (xs.length ? `${fmt(median(xs) * 100)}% (${xs.map((x) => fmt(x * 100)).join(', ')})` : '—');
      lines.push(`| ${name} | ${pct(mine)} | ${pct(theirs)} |`);
    }
    lines.push('', ...(await currentTargets(sides[0]!, samples, shares)));
    log(`\n${lines.join('\n')}\n`);
    log(`The baseline's checkout stays in ${baseline.dir} for the next run; remove it with: git worktree remove --force ${baseline.dir}`);
  } finally {
    await constant?.stop();
    for (const side of sides) await side.running.stop();
  }
}
