// The federation rows of `npm run bench` (issue 49, item 8), on a set seeded with people of other
// servers (scripts/bench/seed-lib.ts, insertRemote):
//
// 1. Feeds, federation off and on: two servers of this tree at once, one on the set and one
//    on a copy of it with FEDERATION=on; Discover and Following measured round after round on
//    each, the order swapped each round, so "on" is seen against the spread of "off".
// 2. Delivery fan-out: the set's 200 other servers come alive as loopback listeners
//    (scripts/bench/fediverse.ts, its own process) and the copy's hosts are rewritten to them; the
//    local person their 1 000 people follow posts through the API; the time until every inbox
//    (a shared inbox where the server offers one) has the Create, and the server's CPU per delivery.
// 3. Memory with the queue full: the receivers hold their answers, the same person posts again
//    and again, and the server's memory is read while the queue holds the deliveries and after it
//    drained.
// 4. Signed inbox POSTs: Likes of our posts by the remote people, signed with their key (which
//    the receivers serve, so the server verifies each for real), pre-signed before the clock
//    starts, sent by N concurrent senders: accepted (202) per second, and how long until every
//    like is in the database (the inbox hands activities to the queue, off the request path).
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { webcrypto } from 'node:crypto';
import { join } from 'node:path';
import { generateCryptoKeyPair, signRequest } from '@fedify/fedify';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { issueAccessToken } from '../../server/src/kernel/auth/issue.js';
import { loadOrCreateSigningKey } from '../../server/src/kernel/auth/keys.js';
import { loadConfig } from '../../server/src/kernel/config.js';
import { benchServerEnv, cpuMicros, freePort, repoRoot, startNode, type Running } from './processes.js';
import { get, median } from './requests.js';
import type { Row, Target } from './report.js';
import type { SeedInfo } from './seed-lib.js';

export interface FederationBenchOptions {
  dir: string;
  info: SeedInfo;
  /** The server's entry and node arguments, as the rest of the bench runs it. */
  entry: string;
  nodeArgs: string[];
  logLevel: string;
  duration: number;
  connections: number;
  /** Rounds of the feeds on/off, and measured fan-outs. */
  rounds: number;
  /** Signed Likes per measured inbox batch. */
  inboxRequests: number;
  /** A small JPEG the federated person posts. */
  photo: Buffer;
  log: (line: string) => void;
}

interface Person {
  sub: string;
  username: string;
  email: string;
}

interface Server {
  running: Running;
  token: string;
}

async function startServer(o: FederationBenchOptions, dir: string, person: Person, extra: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const env = { ...benchServerEnv(dir, port, o.logLevel), ...extra };
  const config = loadConfig(env);
  const key = await loadOrCreateSigningKey(dir);
  const token = await issueAccessToken(key, config.auth, { sub: person.sub, username: person.username, email: person.email }, 4 * 3600);
  const running = await startNode(o.entry, env, port, '/healthz', { nodeArgs: o.nodeArgs });
  return { running, token };
}

const fmt = (x: number, digits = 0) => (Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '–');
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** VmRSS and RssAnon (the heaps: JavaScript's and native allocations, no mapped files) of a process, bytes. */
function rssOf(pid: number) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), anon: kb('RssAnon') };
}

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  cpuUs: number;
  bad: number;
}

async function measure(s: Server, path: string, o: FederationBenchOptions): Promise<Sample> {
  const before = cpuMicros(s.running.pid);
  const r = await autocannon({ url: s.running.url, connections: o.connections, duration: o.duration, requests: [get(path, s.token)], timeout: 30 });
  const cpu = cpuMicros(s.running.pid) - before;
  return { rps: r.requests.total / r.duration, p50: r.latency.p50, p99: r.latency.p99, cpuUs: r.requests.total ? cpu / r.requests.total : NaN, bad: r.non2xx + r.errors + r.timeouts };
}

export async function runFederationBench(o: FederationBenchOptions): Promise<{ rows: Row[]; targets: Target[]; notes: string[] }> {
  const remote = o.info.remote;
  if (!remote) throw new Error(`${o.dir} was seeded without people of other servers: run with --reseed`);
  const rows: Row[] = [];
  const targets: Target[] = [];
  const notes: string[] = [];
  const reader: Person = o.info.reader;
  // The copy federation runs on: the set as it is now (put back as seeded by the caller).
  const fedDir = `${o.dir}-federation`;
  rmSync(fedDir, { recursive: true, force: true });
  cpSync(o.dir, fedDir, { recursive: true, filter: (src) => !/seeded\.(db|json)$|\.db-(wal|shm)$/.test(src) });

  // ------------------------------------------------------------------ 1. feeds off and on
  o.log('Feeds with federation off and on (two servers, the same data):');
  const off = await startServer(o, o.dir, reader, {});
  const on = await startServer(o, fedDir, reader, { FEDERATION: 'on' });
  try {
    const nodeinfo = await fetch(`${on.running.url}/.well-known/nodeinfo`);
    const offInfo = await fetch(`${off.running.url}/.well-known/nodeinfo`);
    if (nodeinfo.status !== 200 || offInfo.status !== 404) throw new Error(`federation on/off not as asked: nodeinfo ${nodeinfo.status} on, ${offInfo.status} off`);
    const feeds = [
      ['Discover page', '/api/discover-posts'],
      ['Following feed page', '/api/followFeed'],
    ] as const;
    for (const s of [off, on]) for (const [, path] of feeds) await measure(s, path, { ...o, duration: 2 });
    const samples = new Map<string, [Sample[], Sample[]]>(feeds.map(([name]) => [name, [[], []]]));
    for (let round = 1; round <= o.rounds; round++) {
      const order = round % 2 ? [0, 1] : [1, 0];
      for (const i of order) {
        for (const [name, path] of feeds) samples.get(name)![i]!.push(await measure(i === 0 ? off : on, path, o));
      }
      const line = feeds.map(([name]) => `${name} off ${fmt(samples.get(name)![0].at(-1)!.rps)} / on ${fmt(samples.get(name)![1].at(-1)!.rps)} req/s`).join(', ');
      o.log(`  round ${round}/${o.rounds}: ${line}`);
    }
    for (const [name] of feeds) {
      const [offS, onS] = samples.get(name)!;
      const label = name === 'Following feed page' ? `${name} (follows ${o.info.reader.following}, ${remote.readerFollowsRemote} of them on other servers)` : name;
      for (const [mode, xs] of [['off', offS], ['on', onS]] as const) {
        rows.push({
          name: `${label}, federation ${mode}`,
          rps: median(xs.map((x) => x.rps)),
          p50: median(xs.map((x) => x.p50)),
          p99: median(xs.map((x) => x.p99)),
          cpuUs: median(xs.map((x) => x.cpuUs)),
          bad: xs.reduce((n, x) => n + x.bad, 0),
          note: `medians of ${xs.length} rounds: ${xs.map((x) => fmt(x.rps)).join(', ')} req/s; CPU ${xs.map((x) => fmt(x.cpuUs)).join(', ')} µs`,
        });
      }
      const ratios = onS.map((x, k) => x.rps / offS[k]!.rps);
      const cpuRatios = onS.map((x, k) => x.cpuUs / offS[k]!.cpuUs);
      const [lo, hi] = [Math.min(...offS.map((x) => x.rps)), Math.max(...offS.map((x) => x.rps))];
      const onMedian = median(onS.map((x) => x.rps));
      targets.push({
        name: `${name} with federation on stays within the spread of federation off (the same tree and data, ${o.rounds} rounds)`,
        measured:
          `on ${fmt(onMedian)} req/s (rounds ${fmt(Math.min(...onS.map((x) => x.rps)))}–${fmt(Math.max(...onS.map((x) => x.rps)))}) against off ${fmt(median(offS.map((x) => x.rps)))} (rounds ${fmt(lo)}–${fmt(hi)}); ` +
          `on/off per round ${ratios.map((r) => r.toFixed(2)).join(', ')}; CPU per request on/off ${median(cpuRatios).toFixed(2)}× (${cpuRatios.map((r) => r.toFixed(2)).join(', ')})`,
        verdict: onMedian >= lo ? 'PASS' : 'FAIL',
      });
    }
  } finally {
    await off.running.stop();
    await on.running.stop();
  }

  // ------------------------------------------------------------------ 2-4. the other servers live
  const keys = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
  const spki = Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey)).toString('base64');
  const pem = `-----BEGIN PUBLIC KEY-----\n${spki.match(/.{1,64}/g)!.join('\n')}\n-----END PUBLIC KEY-----\n`;
  const receivers = await startReceivers(remote.hosts.length, pem);
  let server: Server | undefined;
  try {
    bindHosts(join(fedDir, 'shower-beer.db'), remote.hosts, receivers.ports);
    const allowed = receivers.ports.map((p) => `127.0.0.1:${p}`).join(',');
    // The inbox rows measure what the server can take, not the per-server limit (120 a minute by
    // default, federation/inbox-limits.ts), which the bench's one signing host would hit at once.
    server = await startServer(o, fedDir, remote.federated, {
      FEDERATION: 'on',
      FEDERATION_ALLOWED_PRIVATE_HOSTS: allowed,
      FEDERATION_INBOX_PER_MINUTE: '100000000',
    });
    const db = new Database(join(fedDir, 'shower-beer.db'), { readonly: true });
    try {
      const expected = db
        .prepare<[number], number>(
          `SELECT count(DISTINCT coalesce(r.shared_inbox, r.inbox)) FROM follows f JOIN remote_actors r ON r.user_id = f.follower_id WHERE f.followee_id = ?`,
        )
        .pluck()
        .get(remote.federated.id)!;
      const ctx = { o, server, receivers, db, expected, remote };
      rows.push(await fanOut(ctx));
      rows.push(await queueFull(ctx));
      rows.push(...(await inboxThroughput(ctx, keys.privateKey)));
    } finally {
      db.close();
    }
  } finally {
    await server?.running.stop();
    receivers.child.kill('SIGTERM');
    rmSync(fedDir, { recursive: true, force: true });
  }
  notes.push(
    `Federation rows (scripts/bench/federation.ts): ${remote.people.toLocaleString('en-US')} people of ${remote.hosts.length} other servers (${remote.sharedInboxHosts} offer a shared inbox) follow ${remote.federated.username}; ${remote.posts.toLocaleString('en-US')} posts of theirs are in the set, and the reader follows ${remote.readerFollowsRemote} of them.`,
  );
  return { rows, targets, notes };
}

interface Receivers {
  child: ChildProcess;
  ports: number[];
  control: string;
}

async function startReceivers(servers: number, pem: string): Promise<Receivers> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/fediverse.ts'], {
    cwd: repoRoot,
    env: { ...process.env, SERVERS: String(servers), PUBLIC_KEY_PEM: pem },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr!.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-4000)));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const line = /^ready (.*)$/m.exec(out)?.[1];
      if (line) {
        const { ports, control } = JSON.parse(line) as { ports: number[]; control: number };
        resolve({ child, ports, control: `http://127.0.0.1:${control}` });
      }
    });
    child.once('exit', (code) => reject(new Error(`the receivers exited (${code}):\n${out}`)));
  });
}

/** The seeded hosts (placeholders) made the receivers' loopback listeners, everywhere the set names them. */
function bindHosts(dbFile: string, hosts: string[], ports: number[]) {
  const db = new Database(dbFile);
  try {
    const statements = [
      `UPDATE remote_posts SET uri = replace(uri, @from, @to) WHERE post_id IN (SELECT p.id FROM posts p JOIN users u ON u.id = p.user_id WHERE u.host = @host)`,
      `UPDATE remote_actors SET uri = replace(uri, @from, @to), inbox = replace(inbox, @from, @to), shared_inbox = replace(shared_inbox, @from, @to), url = replace(url, @from, @to)
       WHERE user_id IN (SELECT id FROM users WHERE host = @host)`,
      `UPDATE federation_follows SET activity_uri = replace(activity_uri, @from, @to) WHERE follower_id IN (SELECT id FROM users WHERE host = @host)`,
      `UPDATE users SET username = replace(username, '@' || @host, '@' || @newHost), sub = replace(sub, @from, @to), host = @newHost WHERE host = @host`,
    ].map((sql) => db.prepare(sql));
    db.transaction(() => {
      hosts.forEach((host, i) => {
        const newHost = `127.0.0.1:${ports[i]}`;
        for (const s of statements) s.run({ host, newHost, from: `https://${host}`, to: `http://${newHost}` });
      });
    })();
  } finally {
    db.close();
  }
}

interface Ctx {
  o: FederationBenchOptions;
  server: Server;
  receivers: Receivers;
  db: Database.Database;
  expected: number;
  remote: NonNullable<SeedInfo['remote']>;
}

interface Stats {
  totalPosts: number;
  actorFetches: number;
  refused: number;
  held: number;
  cpuUs: number;
  of: Record<string, { posts: number; servers: number; first: number; last: number }>;
}

async function stats(r: Receivers, ids: string[] = []): Promise<Stats> {
  const q = ids.map((id) => `id=${encodeURIComponent(id)}`).join('&');
  return (await (await fetch(`${r.control}/stats?${q}`)).json()) as Stats;
}

/** Presign, upload and create-post as the federated person; the post's id and the create-post's answer time. */
async function post(s: Server, photo: Buffer): Promise<{ postId: number; startedAt: number; answeredAt: number; createMs: number }> {
  const auth = { authorization: `Bearer ${s.token}` };
  const presign = await fetch(`${s.running.url}/api/presign-upload`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ fileName: 'beer.jpg', fileType: 'image/jpeg' }),
  });
  if (!presign.ok) throw new Error(`presign ${presign.status}: ${await presign.text()}`);
  const { uploadUrl, s3Key } = (await presign.json()) as { uploadUrl: string; s3Key: string };
  const put = await fetch(uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: photo });
  await put.arrayBuffer();
  if (!put.ok) throw new Error(`upload ${put.status}`);
  const startedAt = Date.now();
  const t0 = performance.now();
  const created = await fetch(`${s.running.url}/api/create-post`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ s3Key, caption: 'Fresh from the bench 🍺 #showerbeer', isAnonymous: false }),
  });
  const body = (await created.json()) as { postid?: number; message?: string };
  if (created.status !== 201 || !body.postid) throw new Error(`create-post ${created.status}: ${body.message}`);
  return { postId: body.postid, startedAt, answeredAt: Date.now(), createMs: performance.now() - t0 };
}

const createId = (s: Server, authorId: number, postId: number) => `${s.running.url}/users/${authorId}/posts/${postId}#create`;

async function until(what: string, check: () => Promise<boolean> | boolean, withinMs: number, everyMs = 10) {
  const end = Date.now() + withinMs;
  while (Date.now() < end) {
    if (await check()) return;
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${withinMs / 1000} s waiting until ${what}`);
}

/** One post to every follower's server: time until the last inbox has it, and the server's CPU per delivery. */
async function fanOut({ o, server, receivers, expected, remote }: Ctx): Promise<Row> {
  o.log(`Delivery fan-out: ${remote.people} followers on ${remote.hosts.length} servers, ${expected} inboxes:`);
  const runs: Array<{ allMs: number; firstMs: number; cpuUs: number; createMs: number; receiverCpuUs: number }> = [];
  for (let i = 0; i <= o.rounds; i++) {
    const receiverCpu0 = (await stats(receivers)).cpuUs;
    const p = await post(server, o.photo);
    // The drain starts when create-post is answered (plugin.ts, onResponse): the clock and the CPU from there.
    const cpu0 = cpuMicros(server.running.pid);
    const id = createId(server, remote.federated.id, p.postId);
    let last: Stats['of'][string] | undefined;
    await until(`${expected} inboxes have post ${p.postId}`, async () => {
      last = (await stats(receivers, [id])).of[id];
      return (last?.posts ?? 0) >= expected;
    }, 120_000);
    const cpu = cpuMicros(server.running.pid) - cpu0;
    const receiverCpu = (await stats(receivers)).cpuUs - receiverCpu0;
    const run = { allMs: last!.last - p.answeredAt, firstMs: last!.first - p.answeredAt, cpuUs: cpu / expected, createMs: p.createMs, receiverCpuUs: receiverCpu / expected };
    o.log(`  ${i === 0 ? 'warm-up' : `run ${i}`}: all ${expected} in ${run.allMs} ms after create-post answered (first after ${run.firstMs} ms), ${fmt(run.cpuUs)} µs server CPU per delivery; create-post ${fmt(p.createMs)} ms`);
    if (i > 0) runs.push(run);
  }
  const m = (k: keyof (typeof runs)[number]) => median(runs.map((r) => r[k]));
  return {
    name: `Federation: a post to ${remote.people.toLocaleString('en-US')} followers on ${remote.hosts.length} servers (${expected} deliveries: ${remote.sharedInboxHosts} shared inboxes, the rest personal)`,
    rps: expected / (m('allMs') / 1000),
    p50: m('allMs'),
    p99: Math.max(...runs.map((r) => r.allMs)),
    cpuUs: m('cpuUs'),
    bad: 0,
    note:
      `p50: ms from the create-post's answer until the last inbox had it, median of runs ${runs.map((r) => r.allMs).join(', ')} (p99: the slowest); first inbox after ${fmt(m('firstMs'))} ms; req/s = deliveries/s; ` +
      `server CPU per delivery ${runs.map((r) => fmt(r.cpuUs)).join(', ')} µs (the receivers' own ${fmt(m('receiverCpuUs'))} µs not included); create-post itself ${fmt(m('createMs'))} ms; one warm-up post before`,
  };
}

/** The receivers hold their answers while the person posts again and again: memory with the queue full, and after it drained. */
async function queueFull({ o, server, receivers, db, expected, remote }: Ctx): Promise<Row> {
  const posts = 10;
  o.log(`Queue full: the receivers hold their answers, ${posts} posts:`);
  const pid = server.running.pid;
  const depth = db.prepare<[], { rows: number; bytes: number }>('SELECT count(*) AS rows, coalesce(sum(length(message)), 0) AS bytes FROM federation_queue');
  await sleep(1000);
  const before = rssOf(pid);
  await fetch(`${receivers.control}/stall`, { method: 'POST' });
  let peak = before;
  let fullest = { rows: 0, bytes: 0 };
  const sample = () => {
    const now = rssOf(pid);
    if (now.rss > peak.rss) peak = now;
    const d = depth.get()!;
    if (d.rows > fullest.rows) fullest = d;
  };
  const sampler = setInterval(sample, 50);
  const ids: string[] = [];
  let released: number;
  try {
    for (let i = 0; i < posts; i++) ids.push(createId(server, remote.federated.id, (await post(server, o.photo)).postId));
    // The drain queues each post's fan-out; settled when the queue stops growing.
    let last = -1;
    await until('the queue settles', () => {
      const d = depth.get()!.rows;
      const settled = d === last && d > 0;
      last = d;
      return settled;
    }, 60_000, 500);
    sample();
  } finally {
    clearInterval(sampler);
    released = ((await (await fetch(`${receivers.control}/release`, { method: 'POST' })).json()) as { released: number }).released;
  }
  const full = rssOf(pid);
  const t0 = performance.now();
  const cpu0 = cpuMicros(pid);
  await until(`${posts} posts' deliveries arrive`, async () => {
    const s = await stats(receivers, ids);
    return ids.every((id) => (s.of[id]?.posts ?? 0) >= expected) && depth.get()!.rows === 0;
  }, 300_000, 50);
  const drainMs = performance.now() - t0;
  const drainCpu = cpuMicros(pid) - cpu0;
  await sleep(1000);
  const after = rssOf(pid);
  const total = posts * expected;
  o.log(`  RSS ${mb(before.rss)} before, ${mb(peak.rss)} at most while ${fullest.rows} messages (${(fullest.bytes / 2 ** 20).toFixed(1)} MB) waited, ${mb(after.rss)} after; drained ${total} in ${fmt(drainMs)} ms`);
  return {
    name: `Federation: memory with the queue full (${posts} posts to ${expected} inboxes each, the receivers holding their answers)`,
    rps: total / (drainMs / 1000),
    p50: drainMs,
    cpuUs: drainCpu / total,
    bad: 0,
    note:
      `VmRSS ${mb(before.rss)} before, ${mb(peak.rss)} at most while full, ${mb(full.rss)} when released, ${mb(after.rss)} after it drained (RssAnon, the heaps: ${mb(before.anon)} → ${mb(peak.anon)} → ${mb(after.anon)}); ` +
      `the queue at its fullest ${fullest.rows} rows, ${(fullest.bytes / 2 ** 20).toFixed(1)} MB of messages (${released} deliveries held in flight: the queue's workers); ` +
      `p50 = ms to deliver all ${total} once released, req/s = deliveries/s, CPU per delivery`,
  };
}

/** Signed Likes of our posts by the remote people: accepted per second, and until all are in the database. */
async function inboxThroughput({ o, server, db, receivers }: Ctx, privateKey: webcrypto.CryptoKey): Promise<Row[]> {
  const actors = db.prepare<[], { userId: number; uri: string }>('SELECT user_id AS userId, uri FROM remote_actors ORDER BY user_id').all();
  const posts = db
    .prepare<[], { id: number; userId: number }>(
      `SELECT p.id, p.user_id AS userId FROM posts p JOIN users u ON u.id = p.user_id
       WHERE u.host IS NULL AND u.is_private = 0 AND u.deleted_at IS NULL AND u.suspended_at IS NULL
         AND p.is_anonymous = 0 AND p.is_profile_picture = 0 AND p.hidden = 0
       ORDER BY p.id DESC LIMIT 500`,
    )
    .all();
  const [lo, hi] = [actors[0]!.userId, actors.at(-1)!.userId];
  const remoteLikes = db.prepare<[number, number], number>('SELECT count(*) FROM likes WHERE user_id BETWEEN ? AND ?').pluck();
  const batches = [actors.length, ...Array.from({ length: o.rounds }, () => o.inboxRequests)];
  const needed = batches.reduce((a, b) => a + b, 0);
  if (needed > actors.length * posts.length) throw new Error('not enough (person, post) pairs for distinct likes');
  o.log(`Signed inbox POSTs: signing ${needed} Likes (each a distinct person and post)…`);
  const url = server.running.url;
  const signed: Array<{ path: string; headers: Record<string, string>; body: string }> = [];
  for (let j = 0; j < needed; j++) {
    const actor = actors[j % actors.length]!;
    const target = posts[Math.floor(j / actors.length)]!;
    const object = `${url}/users/${target.userId}/posts/${target.id}`;
    const body = JSON.stringify({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${actor.uri}#likes/${target.id}`,
      type: 'Like',
      actor: actor.uri,
      object,
    });
    const path = `/users/${target.userId}/inbox`;
    const request = await signRequest(
      new Request(url + path, { method: 'POST', headers: { 'content-type': 'application/activity+json', accept: 'application/activity+json' }, body }),
      privateKey,
      new URL(`${actor.uri}#main-key`),
    );
    signed.push({ path, headers: Object.fromEntries(request.headers), body });
  }
  let next = 0;
  const results: Array<{ accepted: number; bad: number; seconds: number; processedSeconds: number; p50: number; p99: number; cpuUs: number; acceptCpuUs: number; keyFetches: number }> = [];
  for (const [b, size] of batches.entries()) {
    const batch = signed.slice(next, next + size);
    next += size;
    const likes0 = remoteLikes.get(lo, hi)!;
    const fetches0 = (await stats(receivers)).actorFetches;
    const cpu0 = cpuMicros(server.running.pid);
    const t0 = performance.now();
    const latencies: number[] = [];
    let accepted = 0;
    let bad = 0;
    let i = 0;
    const sender = async () => {
      while (i < batch.length) {
        const r = batch[i++]!;
        const s = performance.now();
        const res = await fetch(url + r.path, { method: 'POST', headers: r.headers, body: r.body });
        await res.arrayBuffer();
        latencies.push(performance.now() - s);
        if (res.status === 202) accepted++;
        else bad++;
      }
    };
    await Promise.all(Array.from({ length: o.connections }, sender));
    const seconds = (performance.now() - t0) / 1000;
    const acceptCpu = cpuMicros(server.running.pid) - cpu0;
    // Processed off the request path: every accepted like in the database (or no more coming).
    let seen = -1;
    let still = 0;
    await until('the likes are processed', () => {
      const n = remoteLikes.get(lo, hi)! - likes0;
      still = n === seen ? still + 1 : 0;
      seen = n;
      return n >= accepted || still > 100;
    }, 300_000, 20);
    const processedSeconds = (performance.now() - t0) / 1000;
    const cpu = cpuMicros(server.running.pid) - cpu0;
    latencies.sort((a, b) => a - b);
    const r = {
      accepted,
      bad,
      seconds,
      processedSeconds,
      p50: latencies[Math.floor(latencies.length / 2)]!,
      p99: latencies[Math.floor(latencies.length * 0.99)]!,
      cpuUs: cpu / Math.max(1, accepted),
      acceptCpuUs: acceptCpu / Math.max(1, accepted),
      keyFetches: (await stats(receivers)).actorFetches - fetches0,
    };
    if (seen < accepted) o.log(`  only ${seen} of ${accepted} accepted likes reached the database`);
    o.log(`  ${b === 0 ? 'first contact (each key fetched once)' : `batch ${b}`}: ${accepted} accepted in ${seconds.toFixed(2)} s = ${fmt(accepted / seconds)}/s (p50 ${r.p50.toFixed(1)} ms), all in the database after ${processedSeconds.toFixed(2)} s; ${fmt(r.cpuUs)} µs CPU per like; ${r.keyFetches} actor documents fetched${bad ? `; ${bad} not 202` : ''}`);
    results.push(r);
  }
  const [cold, ...warm] = results;
  const m = (k: keyof (typeof results)[number]) => median(warm.map((r) => r[k]));
  return [
    {
      name: `Federation: signed inbox POSTs (a Like of one of our posts each), accepted`,
      rps: median(warm.map((r) => r.accepted / r.seconds)),
      p50: m('p50'),
      p99: m('p99'),
      cpuUs: m('cpuUs'),
      bad: warm.reduce((n, r) => n + r.bad, 0),
      note:
        `${o.connections} concurrent senders, ${o.inboxRequests} pre-signed Likes a batch, median of ${warm.length} (${warm.map((r) => fmt(r.accepted / r.seconds)).join(', ')}/s); ` +
        `all in the database ${warm.map((r) => r.processedSeconds.toFixed(1)).join(', ')} s after the first was sent (${fmt(median(warm.map((r) => r.accepted / r.processedSeconds)))} likes/s processed); ` +
        `CPU per like until all were processed (until the last answer ${fmt(m('acceptCpuUs'))} µs, the queue working alongside); ${warm.map((r) => r.keyFetches).join(', ')} actor documents fetched (the key cache's misses)`,
    },
    {
      name: `Federation: signed inbox POSTs, first contact (${cold!.accepted} people, each key fetched from its server)`,
      rps: cold!.accepted / cold!.seconds,
      p50: cold!.p50,
      p99: cold!.p99,
      cpuUs: cold!.cpuUs,
      bad: cold!.bad,
      note: `all in the database after ${cold!.processedSeconds.toFixed(1)} s; ${cold!.keyFetches} actor documents fetched`,
    },
  ];
}

