// `npm run stress [-- --short] [--clients N] [--seconds N] [--no-crash] [--server tsx|built] [--keep]`
//
// Starts the real server on a fresh DATA_DIR and a free loopback port, signs in
// N users (tokens minted with the DATA_DIR signing key), and runs a mixed load
// (reads, likes, comments, follows, uploads → posts, deletes) from N concurrent
// clients. Half-way it kills the server with SIGKILL, checks the database as the
// next start would find it, starts the server again and goes on. At the end it
// stops the server with SIGTERM while requests are in flight (they must finish),
// then checks the database against every answer the clients got: rows, counter
// columns, integrity, and every post's images. Exits 1 on any disagreement or 5xx.
//
// --short (part of npm test): 50 clients for 10 s with one SIGKILL/restart.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { issueAccessToken } from '../server/src/kernel/auth/issue.js';
import { loadOrCreateSigningKey } from '../server/src/kernel/auth/keys.js';
import { loadConfig } from '../server/src/kernel/config.js';
import { Model, Tally } from './stress/model.js';
import { freePort, startServer, type ServerProcess } from './stress/server.js';
import { verify, type Verification } from './stress/verify.js';

const { values } = parseArgs({
  options: {
    short: { type: 'boolean', default: false },
    clients: { type: 'string' },
    seconds: { type: 'string' },
    'no-crash': { type: 'boolean', default: false },
    server: { type: 'string', default: 'tsx' },
    keep: { type: 'boolean', default: false },
    entry: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(`Usage: npm run stress -- [--short] [--clients N] [--seconds N] [--no-crash] [--server tsx|built] [--keep]
  default: 200 clients for 60 s with a SIGKILL/restart half-way; --short: 50 clients for 10 s
  --server built runs server/dist/server.js (npm run build -w server first); --keep leaves the DATA_DIR;
  --entry FILE runs another server entry (to try a fix)`);
  process.exit(0);
}
const CLIENTS = Number(values.clients ?? (values.short ? 50 : 200));
const SECONDS = Number(values.seconds ?? (values.short ? 10 : 60));
const CRASH = !values['no-crash'];
const MODE = values.server === 'built' ? 'built' : 'tsx';
/** Uploads in flight at once across all clients: below the server's image queue (1 running + 16 waiting). */
const MAX_UPLOADS_IN_FLIGHT = 8;

// ---------------------------------------------------------------- HTTP

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers of every route's shape, read field by field by the model below
type Outcome = { kind: 'answer'; status: number; text: string; json: any } | { kind: 'refused' } | { kind: 'doubt'; why: string };

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: CLIENTS + 16 });
let baseUrl = '';

function send(method: string, path: string, opts: { token?: string; json?: unknown; body?: Buffer; contentType?: string; fresh?: boolean } = {}): Promise<Outcome> {
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = {};
    let payload: Buffer | undefined;
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.json !== undefined) {
      payload = Buffer.from(JSON.stringify(opts.json));
      headers['content-type'] = 'application/json';
    } else if (opts.body) {
      payload = opts.body;
      headers['content-type'] = opts.contentType ?? 'application/octet-stream';
    }
    if (payload) headers['content-length'] = payload.length;
    const req = http.request(`${baseUrl}${path}`, { method, headers, agent: opts.fresh ? false : keepAlive, timeout: 60_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let json: unknown = null;
        try {
          json = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ kind: 'answer', status: res.statusCode ?? 0, text, json });
      });
      res.on('error', (err) => resolve({ kind: 'doubt', why: err.message }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (err: NodeJS.ErrnoException) => {
      // Refused: nothing was sent to a server. Anything else (reset, hang-up, timeout): it may have run.
      resolve(err.code === 'ECONNREFUSED' ? { kind: 'refused' } : { kind: 'doubt', why: err.code ?? err.message });
    });
    req.end(payload);
  });
}

// ---------------------------------------------------------------- the run

const model = new Model();
const tally = new Tally();
const usernames = Array.from({ length: CLIENTS }, (_, i) => `stress_${i}`);
const tokens: string[] = [];
let serverDown = false;
let uploadsInFlight = 0;
const rand = (n: number) => Math.floor(Math.random() * n);
const pick = <T>(xs: T[]): T | undefined => (xs.length ? xs[rand(xs.length)] : undefined);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const images: Buffer[] = [];

/** Sends one request and records how it was answered; refused requests wait for the server to come back. */
async function call(op: string, method: string, path: string, opts: Parameters<typeof send>[2] = {}): Promise<Outcome> {
  const out = await send(method, path, opts);
  if (out.kind === 'answer') tally.answered(op, out.status, out.text);
  else if (out.kind === 'refused') {
    tally.refused(op);
    await sleep(50);
  } else tally.inDoubt(op);
  return out;
}

async function like(u: number) {
  const postId = pick(model.livePosts());
  if (postId === undefined) return;
  const key = `${u}:${postId}`;
  const liked = model.likes.get(key) === 'yes';
  const out = liked
    ? await call('unlike', 'DELETE', `/api/like?postId=${postId}`, { token: tokens[u] })
    : await call('like', 'POST', '/api/like', { token: tokens[u], json: { postId } });
  if (out.kind === 'doubt') model.likes.set(key, 'unknown');
  else if (out.kind === 'answer' && (out.status === 201 || out.status === 200 || out.status === 409)) {
    // 409 states the resulting state too: "already liked" / "not liked".
    model.likes.set(key, liked ? 'no' : 'yes');
  }
}

async function comment(u: number) {
  const postId = pick(model.livePosts());
  if (postId === undefined) return;
  const content = `stress ${u} ${randomUUID().slice(0, 8)} 🍺`;
  const out = await call('comment', 'POST', '/api/comment', { token: tokens[u], json: { postId, comment: content } });
  if (out.kind === 'doubt') model.inDoubtCommentCreates++;
  else if (out.kind === 'answer' && out.status === 201) {
    model.comments.set(out.json.comment_id, { postId, userIdx: u, content, exists: 'yes' });
  }
}

async function deleteComment(u: number) {
  const mine = [...model.comments].filter(([, c]) => c.userIdx === u && c.exists === 'yes').map(([id]) => id);
  const id = pick(mine);
  if (id === undefined) return comment(u);
  const out = await call('delete-comment', 'DELETE', `/api/comment?commentId=${id}`, { token: tokens[u] });
  const c = model.comments.get(id)!;
  if (out.kind === 'doubt') c.exists = 'unknown';
  else if (out.kind === 'answer' && out.status === 200) c.exists = 'no';
}

async function follow(u: number) {
  let v = rand(CLIENTS);
  if (v === u) v = (v + 1) % CLIENTS;
  if (v === u) return;
  const key = `${u}:${v}`;
  const following = model.follows.get(key) === 'yes';
  const path = `/api/account/${usernames[v]}/follow`;
  const out = await call(following ? 'unfollow' : 'follow', following ? 'DELETE' : 'POST', path, { token: tokens[u] });
  if (out.kind === 'doubt') model.follows.set(key, 'unknown');
  else if (out.kind === 'answer' && (out.status === 200 || out.status === 409)) model.follows.set(key, following ? 'no' : 'yes');
}

/** `creating`: called as the create-post request leaves (its upload is in), so a caller knows it is on its way. */
async function post(u: number, anonymous = Math.random() < 0.2, creating?: () => void): Promise<number | null> {
  uploadsInFlight++;
  try {
    const signed = await call('presign', 'POST', '/api/presign-upload', { token: tokens[u], json: { fileName: 'beer.jpg', fileType: 'image/jpeg' } });
    if (signed.kind !== 'answer' || signed.status !== 200) return null;
    const url = new URL(signed.json.uploadUrl as string);
    const put = await call('upload-put', 'PUT', url.pathname + url.search, { body: pick(images)!, contentType: 'image/jpeg' });
    if (put.kind !== 'answer' || put.status !== 200) return null;
    creating?.();
    const created = await call('create-post', 'POST', '/api/create-post', {
      token: tokens[u],
      json: { s3Key: signed.json.s3Key, caption: `stress post by ${u} <b>not bold</b>`, isAnonymous: anonymous },
    });
    if (created.kind === 'doubt') model.inDoubtPostCreates++;
    if (created.kind !== 'answer' || created.status !== 201) return null;
    const mediaKey = /^\/media\/([^/]+)\/display\.webp$/.exec(created.json.s3Url as string)?.[1] ?? '?';
    model.posts.set(created.json.postid, { userIdx: u, mediaKey, anonymous, exists: 'yes' });
    return created.json.postid as number;
  } finally {
    uploadsInFlight--;
  }
}

async function deletePost(u: number) {
  const mine = [...model.posts].filter(([, p]) => p.userIdx === u && p.exists === 'yes').map(([id]) => id);
  // Keep at least a seed post per user so there is always something to like.
  if (mine.length < 2) return like(u);
  const id = pick(mine)!;
  const out = await call('delete-post', 'DELETE', `/api/post?postId=${id}`, { token: tokens[u] });
  const p = model.posts.get(id)!;
  if (out.kind === 'doubt') p.exists = 'unknown';
  else if (out.kind === 'answer' && out.status === 200) p.exists = 'no';
}

async function read(u: number) {
  const postId = pick(model.livePosts()) ?? 1;
  const reads: [string, string][] = [
    ['discover', '/api/discover-posts'],
    ['discover', '/api/discover-posts?limit=10'],
    ['follow-feed', '/api/followFeed'],
    ['own-profile', '/api/user-posts'],
    ['view-user', `/api/view-user-posts?username=${usernames[rand(CLIENTS)]}`],
    ['get-like', `/api/like?postId=${postId}`],
    ['get-comments', `/api/comment?postId=${postId}`],
    ['search', `/api/search-profiles?username=stress_${rand(20)}`],
    ['followers', `/api/account/${usernames[rand(CLIENTS)]}/followers`],
  ];
  const [op, path] = pick(reads)!;
  await call(op, 'GET', path, { token: tokens[u] });
}

async function client(u: number, until: number) {
  while (Date.now() < until) {
    if (serverDown) {
      await sleep(50);
      continue;
    }
    const r = Math.random();
    if (r < 0.42) await read(u);
    else if (r < 0.62) await like(u);
    else if (r < 0.74) await comment(u);
    else if (r < 0.78) await deleteComment(u);
    else if (r < 0.9) await follow(u);
    else if (r < 0.93 && uploadsInFlight < MAX_UPLOADS_IN_FLIGHT) await post(u);
    else if (r < 0.94) await deletePost(u);
    else if (r < 0.96) await call('sync-users', 'POST', '/api/sync-users', { token: tokens[u] });
    else await read(u);
  }
}

function summary(v: Verification) {
  return `posts ${v.db.posts} (acknowledged ${v.expected.posts}, in doubt ${v.inDoubt.posts}), likes ${v.db.likes} (${v.expected.likes}, ${v.inDoubt.likes}), comments ${v.db.comments} (${v.expected.comments}, ${v.inDoubt.comments}), follows ${v.db.follows} (${v.expected.follows}, ${v.inDoubt.follows}); integrity ${v.integrity}; posts missing images ${v.postsMissingImages}`;
}

async function main() {
  const started = Date.now();
  const dataDir = mkdtempSync(join(tmpdir(), 'shower-beer-stress-'));
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: baseUrl,
    LOG_LEVEL: 'warn',
    AUTH_PROVIDER: 'embedded',
    STORAGE_DRIVER: 'local',
    WEB_DIST_DIR: join(dataDir, 'no-web'),
    // One user's writes are limited to 600/min by default; the load is about correctness, not the limiter.
    RATE_LIMIT_WRITES_PER_MINUTE: '1000000',
  };
  console.log(`stress: ${CLIENTS} clients for ${SECONDS} s${CRASH ? ', SIGKILL/restart half-way' : ''}; server ${MODE} at ${baseUrl}; DATA_DIR ${dataDir}`);
  let server: ServerProcess = await startServer(env, port, MODE, values.entry);
  const failures: string[] = [];
  let crashReport = 'not run';
  let drainReport = 'not run';
  try {
    const config = loadConfig(env);
    const key = await loadOrCreateSigningKey(dataDir);
    for (const name of usernames) {
      tokens.push(await issueAccessToken(key, config.auth, { sub: randomUUID(), username: name, email: `${name}@example.test` }, 3600));
    }
    for (let i = 0; i < 4; i++) {
      images.push(
        await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 200, g: 150 + i * 20, b: 40 }, noise: { type: 'gaussian', mean: 120, sigma: 30 } } })
          .jpeg({ quality: 80 })
          .toBuffer(),
      );
    }
    // Every user signs in and shares one post, a few at a time (the image queue is small).
    for (let i = 0; i < CLIENTS; i += 4) {
      await Promise.all(usernames.slice(i, i + 4).map(async (_, k) => {
        const u = i + k;
        await call('sync-users', 'POST', '/api/sync-users', { token: tokens[u] });
        if ((await post(u, false)) === null) failures.push(`seed post for ${usernames[u]} failed`);
      }));
    }
    console.log(`seeded ${CLIENTS} users with ${model.livePosts().length} posts in ${Date.now() - started} ms`);

    const loadStart = Date.now();
    const until = loadStart + SECONDS * 1000;
    const clients = usernames.map((_, u) => client(u, until));

    if (CRASH) {
      await sleep((SECONDS * 1000) / 2);
      serverDown = true;
      server.child.kill('SIGKILL');
      const exit = await server.exited;
      await sleep(300); // answers that made it out before the kill are processed
      const check = verify(dataDir, model, usernames);
      crashReport = `killed (${exit.signal}) at ${((Date.now() - loadStart) / 1000).toFixed(1)} s; on disk: ${summary(check)}`;
      if (check.problems.length) failures.push(...check.problems.map((p) => `after SIGKILL: ${p}`));
      const t0 = Date.now();
      try {
        server = await startServer(env, port, MODE, values.entry);
        crashReport += `; restarted and ready in ${Date.now() - t0} ms`;
      } catch (err) {
        failures.push(`restart after SIGKILL failed: ${(err as Error).message}`);
        crashReport += '; RESTART FAILED';
      }
      serverDown = false;
    }
    await Promise.all(clients);
    const loadSeconds = (Date.now() - loadStart) / 1000;

    // SIGTERM with requests in flight: uploads being turned into posts (they queue for the image
    // pipeline, so they are surely inside the server) and reads sent just before, on new connections.
    if (server.child.exitCode === null) {
      // Each SIGTERM'd create-post must have left before the signal: on a slow machine its presign
      // and upload alone can take longer than any fixed wait (a run beside other work saw 5 of 6
      // create-posts arrive after the signal, refused 503 by a closing server). At most 10 s.
      let leaving = 0;
      const slow = Array.from({ length: Math.min(6, CLIENTS) }, async (_, u) => {
        const id = await post(u, false, () => leaving++);
        return id === null ? 'failed' : 'created';
      });
      const allLeft = Date.now() + 10_000;
      while (leaving < slow.length && Date.now() < allLeft) await sleep(20);
      await sleep(150);
      const reads = Array.from({ length: 30 }, (_, i) => send('GET', '/api/discover-posts', { token: tokens[i % CLIENTS], fresh: true }));
      await sleep(100);
      const t0 = Date.now();
      server.child.kill('SIGTERM');
      const slowResults = await Promise.all(slow);
      const readResults = await Promise.all(reads);
      const exit = await server.exited;
      const created = slowResults.filter((r) => r === 'created').length;
      const answered = readResults.filter((r) => r.kind === 'answer' && r.status < 500).length;
      const broken = readResults.filter((r) => r.kind === 'doubt').length;
      const wal = join(dataDir, 'shower-beer.db-wal');
      const walBytes = existsSync(wal) ? statSync(wal).size : 0;
      drainReport =
        `${slow.length} uploads→create-post in flight: ${created} completed with 201; ` +
        `${reads.length} reads sent 100 ms before: ${answered} answered, ${broken} reset; ` +
        `exit code ${exit.code} after ${Date.now() - t0} ms; WAL left ${walBytes} bytes`;
      if (created < slow.length) failures.push(`SIGTERM: ${slow.length - created} in-flight create-posts did not complete`);
      // Not a failure: a request still unread in its socket when the server stops is reset (the client may retry);
      // the ones the server had started on (the create-posts) must all finish.
      if (broken > 0) drainReport += ` (the broken reads were still unread in their sockets at SIGTERM)`;
      if (exit.code !== 0) failures.push(`SIGTERM exit code ${exit.code} (signal ${exit.signal})`);
      if (walBytes > 0) failures.push(`the WAL was not checkpointed on close (${walBytes} bytes)`);
    }

    const final = verify(dataDir, model, usernames);
    failures.push(...final.problems);
    const totals = tally.totals();
    if (totals.serverErr > 0) failures.push(`${totals.serverErr} answers were 5xx: ${tally.serverErrors.join(' | ')}`);

    console.log('\nper operation: sent / 2xx / 4xx / 5xx / refused (server down) / in doubt (connection broke)');
    for (const [op, r] of [...tally.byOp].sort()) {
      console.log(`  ${op.padEnd(26)} ${String(r.sent).padStart(7)} ${String(r.ok).padStart(7)} ${String(r.clientErr).padStart(6)} ${String(r.serverErr).padStart(4)} ${String(r.refused).padStart(6)} ${String(r.inDoubt).padStart(5)}`);
    }
    console.log(`  ${'total'.padEnd(26)} ${String(totals.sent).padStart(7)} ${String(totals.ok).padStart(7)} ${String(totals.clientErr).padStart(6)} ${String(totals.serverErr).padStart(4)} ${String(totals.refused).padStart(6)} ${String(totals.inDoubt).padStart(5)}`);
    console.log(`  statuses: ${[...tally.statuses].sort((a, b) => a[0] - b[0]).map(([s, c]) => `${s}×${c}`).join(' ')}`);
    console.log(`  load: ${loadSeconds.toFixed(1)} s, ${(totals.sent / loadSeconds).toFixed(0)} requests/s`);
    console.log(`\ncrash: ${crashReport}`);
    console.log(`SIGTERM: ${drainReport}`);
    console.log(`database (actual vs acknowledged, in doubt): ${summary(final)}; ${final.db.users} users; orphaned media folders ${final.orphanMediaDirs}`);
    console.log(`agreement: ${failures.length === 0 ? 'YES, every acknowledged write is in the database and every count matches' : `NO (${failures.length} problems)`}`);
    for (const f of failures.slice(0, 30)) console.log(`  - ${f}`);
    console.log(`total time ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    keepAlive.destroy();
    if (!values.keep) rmSync(dataDir, { recursive: true, force: true });
    else console.log(`DATA_DIR kept at ${dataDir}`);
  }
  process.exit(failures.length === 0 ? 0 : 1);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
