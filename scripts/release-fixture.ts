// `npm run release:fixture -- <commit> [--version X.Y.Z] [--worktree DIR] [--out DIR] [--keep-worktree]`
//
// Makes the data an earlier release wrote, with that release's own code, for the upgrade test
// (server/test/upgrade/releases.test.ts):
//   1. `git worktree add` of <commit> under the temp folder; its own `npm ci` (or a copy of this
//      tree's node_modules when the lockfiles are byte-identical) and its own server build;
//   2. its own `npm run seed` (a small set) into a temp DATA_DIR;
//   3. its own server on that DATA_DIR (embedded provider, local storage), and through its own API
//      and its provider's own sign-up pages, over HTTP: people, photos, an anonymous post, an album,
//      likes, comments, follows, a block, a report, a private account and a follow request, an
//      invite, notifications read and unread, a suspended account, a removed account: each only
//      where that release had it (a write whose route the release lacks is recorded as absent);
//   4. the server stopped, its `npm run backup` when it had one;
//   5. tests/fixtures/releases/<version>-<commit>/: the database, the signing keys, the photos,
//      the backup, and manifest.json (row counts, counters, people and passwords, photo URLs
//      with the sha256 of their bytes).
// CI never runs this: it reads the committed fixtures. Run it once per release (CHANGELOG.md).
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { freePort, waitForOk } from './prod/round-trip.js';
import { git, releaseTree, repo, run as runIn } from './release-tree.js';
import { counterSums, FIXTURE_DB, FIXTURES_DIR, KNOWN_RELEASES, rowDigests, tableCounts, type FixtureManifest, type FixturePerson, type FixturePost } from './release-fixtures-lib.js';


const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    version: { type: 'string' },
    worktree: { type: 'string' },
    out: { type: 'string' },
    'keep-worktree': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help || positionals.length !== 1) {
  console.log(`Usage: npm run release:fixture -- <commit> [--version X.Y.Z] [--worktree DIR] [--out DIR] [--keep-worktree]
  --version X.Y.Z   the release's version (known: ${Object.entries(KNOWN_RELEASES).map(([c, v]) => `${c}=${v}`).join(', ')})
  --worktree DIR    use (and keep) a worktree of <commit> already checked out and built there
  --out DIR         where to write (default ${relative(repo, FIXTURES_DIR)}/<version>-<commit>)
  --keep-worktree   do not remove the temporary worktree afterwards`);
  process.exit(values.help ? 0 : 2);
}

const say = (line: string) => console.log(`[release-fixture] ${line}`);
const commit = git('rev-parse', '--short=7', `${positionals[0]!}^{commit}`);
const version: string = values.version ?? KNOWN_RELEASES[commit] ?? '';
if (!/^\d+\.\d+\.\d+$/.test(version)) {
  console.error(`No version for ${commit}: pass --version X.Y.Z`);
  process.exit(2);
}
const out = resolve(values.out ?? join(FIXTURES_DIR, `${version}-${commit}`));

/** A write whose route the release did not have (Fastify's "Route … not found"). */
class RouteMissing extends Error {}

const run = (cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) => runIn(cmd, args, cwd, env, say);

// ---- 1. the release's own tree, dependencies and build
const release = releaseTree(commit, { dir: values.worktree, keep: values['keep-worktree'], say });
try {
  await makeFixture(release.dir);
} finally {
  release.done();
}

async function makeFixture(tree: string) {
  const work = mkdtempSync(join(tmpdir(), `shower-beer-fixture-${commit}-`));
  const dataDir = join(work, 'data');
  try {
    // ---- 2. the release's own seed, small
    run(
      'npx',
      ['tsx', 'scripts/seed.ts', '--posts', '60', '--users', '24', '--likes', '150', '--comments', '60', '--follows', '60',
        '--reader-follows', '5', '--media', '2', '--data-dir', dataDir, '--force', '--no-analyze'],
      tree,
    );

    // ---- 3. its server, and what people do through its API
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = {
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: base,
      DATA_DIR: dataDir,
      AUTH_PROVIDER: 'embedded',
      STORAGE_DRIVER: 'local',
      LOG_LEVEL: 'warn',
      WEB_DIST_DIR: join(work, 'no-web'),
      ADMIN_USERNAMES: 'olga',
      REGISTRATION_MODE: 'open',
      RATE_LIMIT_AUTH_PER_MINUTE: '1000',
      RATE_LIMIT_WRITES_PER_MINUTE: '1000',
      READ_WORKERS: '0',
    };
    const server = spawn('node', ['server/dist/server.js'], { cwd: tree, env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit'] });
    let manifestBody: Omit<FixtureManifest, 'tables' | 'counters' | 'rows' | 'migrations' | 'photos' | 'backup'>;
    try {
      // Generous: on a busy machine an old build can take minutes to start; an early exit fails at once.
      const exited = new Promise<never>((_, reject) => server.once('exit', (code) => reject(new Error(`the server exited (${code}) before it was ready`))));
      exited.catch(() => {}); // stopped on purpose below: not an error then
      await Promise.race([waitForOk(`${base}/readyz`, 600_000), exited]);
      manifestBody = await populate(base);
    } finally {
      await stop(server);
    }

    // ---- 4. the database as the stopped server left it, and its own backup
    const dbFile = join(dataDir, FIXTURE_DB);
    if (existsSync(`${dbFile}-wal`) && statSync(`${dbFile}-wal`).size > 0) throw new Error('the server left a -wal behind: not stopped cleanly');
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    let backup: string | null = null;
    if (existsSync(join(tree, 'scripts', 'backup.ts'))) {
      run('npx', ['tsx', 'scripts/backup.ts', join(out, 'backup')], tree, env);
      backup = 'backup';
    }
    cpSync(dbFile, join(out, FIXTURE_DB));
    cpSync(join(dataDir, 'keys'), join(out, 'keys'), { recursive: true });
    cpSync(join(dataDir, 'storage', 'media'), join(out, 'storage', 'media'), { recursive: true });

    // Counted on the data dir's file (the copy stays as written: no -shm or -wal beside it).
    const db = new Database(dbFile, { readonly: true });
    try {
      const manifest: FixtureManifest = {
        ...manifestBody,
        migrations: (db.prepare('SELECT hash, created_at FROM __drizzle_migrations ORDER BY id').all() as Array<{ hash: string; created_at: number }>).map(
          (r) => ({ hash: r.hash, createdAt: Number(r.created_at) }),
        ),
        tables: tableCounts(db),
        counters: counterSums(db),
        rows: rowDigests(db),
        photos: photoFiles(join(out, 'storage', 'media')),
        backup,
      };
      writeFileSync(join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    } finally {
      db.close();
    }
    say(`wrote ${relative(repo, out)} (${Math.round(du(out) / 1024)} KiB)`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolvePromise) => {
    if (child.exitCode !== null) return resolvePromise();
    child.once('exit', () => resolvePromise());
    child.kill('SIGTERM');
  });
}

function du(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  return readdirSync(path).reduce((sum, name) => sum + du(join(path, name)), 0);
}

function photoFiles(mediaDir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files[`/media/${relative(mediaDir, path).split('\\').join('/')}`] = createHash('sha256').update(readFileSync(path)).digest('hex');
    }
  };
  walk(mediaDir);
  return files;
}

// ---------------------------------------------------------------- over HTTP

/** A person's session on the release's server: its provider's pages for sign-up, then its API. */
async function populate(base: string): Promise<Omit<FixtureManifest, 'tables' | 'counters' | 'rows' | 'migrations' | 'photos' | 'backup'>> {
  const config = (await (await fetch(`${base}/config.json`)).json()) as { auth: { clientId: string; redirectUri: string } };
  const made: Record<string, boolean> = {};
  const people: FixturePerson[] = [];
  const posts: FixturePost[] = [];

  async function providerForm(path: string, fields: Record<string, string>): Promise<string> {
    const oauth = {
      response_type: 'token',
      client_id: config.auth.clientId,
      redirect_uri: config.auth.redirectUri,
      scope: 'email openid profile',
      state: randomBytes(8).toString('hex'),
    };
    const page = await fetch(`${base}${path}?${new URLSearchParams(oauth)}`, { redirect: 'manual' });
    const html = await page.text();
    if (page.status !== 200) throw new Error(`${path} answered ${page.status}`);
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0]!;
    const form: Record<string, string> = { ...oauth };
    // Hidden fields as the page gives them (csrf_token, the oauth parameters), checkboxes ticked
    // (the terms, where a release asks for them), then what the person types.
    for (const m of html.matchAll(/<input\b[^>]*>/g)) {
      const tag = m[0];
      const name = /\bname="([^"]+)"/.exec(tag)?.[1];
      if (!name) continue;
      const value = /\bvalue="([^"]*)"/.exec(tag)?.[1] ?? '';
      if (/type="hidden"/.test(tag)) form[name] = value.replace(/&amp;/g, '&').replace(/&quot;/g, '"');
      if (/type="checkbox"/.test(tag)) form[name] = value || 'on';
    }
    Object.assign(form, fields);
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams(form).toString(),
    });
    const location = res.headers.get('location') ?? '';
    const token = new URLSearchParams(location.slice(location.indexOf('#') + 1)).get('access_token');
    if (res.status !== 303 || !token) throw new Error(`${path} answered ${res.status} without a token: ${(await res.text()).replace(/\s+/g, ' ').slice(0, 400)}`);
    return token;
  }

  const tokens = new Map<string, string>();
  async function signUp(username: string, roles: string[]): Promise<string> {
    const password = `Shower beer ${username} ${randomBytes(4).toString('hex')}`;
    const email = `${username}@example.test`;
    const token = await providerForm('/oauth2/signup', { username, email, password, password_confirm: password, confirm_password: password });
    people.push({ username, email, password, roles });
    tokens.set(username, token);
    // The app's own first call after sign-in (it creates the profile row on older releases).
    await api(username, 'POST', '/api/sync-users');
    return token;
  }

  async function api<T = unknown>(who: string, method: string, path: string, body?: unknown, expect: number[] = [200, 201]): Promise<T> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${tokens.get(who)!}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status === 404 && /Route .* not found|No route for/.test(text)) throw new RouteMissing(`${method} ${path}`);
    if (!expect.includes(res.status)) throw new Error(`${who}: ${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : null) as T;
  }

  /** Runs a feature's writes; a route this release lacks marks the feature absent. */
  async function feature(name: string, fn: () => Promise<void>) {
    try {
      await fn();
      made[name] = true;
      say(`made: ${name}`);
    } catch (err) {
      if (!(err instanceof RouteMissing)) throw err;
      made[name] = false;
      say(`absent in ${commit}: ${name} (${err.message})`);
    }
  }

  let colour = 0;
  async function upload(who: string): Promise<string> {
    const presign = await api<{ uploadUrl: string; s3Key: string }>(who, 'POST', '/api/presign-upload', { fileName: 'beer.jpg', fileType: 'image/jpeg' });
    const hue = (colour++ * 67) % 256;
    const photo = await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: hue, g: 200 - (hue % 120), b: 40 } } }).jpeg({ quality: 70 }).toBuffer();
    const put = await fetch(presign.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/jpeg' }, body: photo });
    if (!put.ok) throw new Error(`upload answered ${put.status}`);
    return presign.s3Key;
  }

  async function post(who: string, caption: string, isAnonymous: boolean, photos = 1): Promise<number> {
    const keys: string[] = [];
    for (let i = 0; i < photos; i++) keys.push(await upload(who));
    const body = photos === 1 ? { s3Key: keys[0], caption, isAnonymous } : { photos: keys.map((s3Key) => ({ s3Key })), caption, isAnonymous };
    await api(who, 'POST', '/api/create-post', body);
    const mine = await api<{ posts: Array<{ postid: number; caption: string; s3Url: string }> }>(who, 'GET', '/api/user-posts');
    const row = mine.posts.find((p) => p.caption === caption);
    if (!row) throw new Error(`${who}'s new post "${caption}" is not in /api/user-posts`);
    posts.push({ postid: row.postid, author: who, caption, isAnonymous, photos, s3Url: row.s3Url });
    return row.postid;
  }

  // The operator first (the embedded provider's first account is one; ADMIN_USERNAMES names her too).
  await signUp('olga', ['operator']);
  for (const name of ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'gina']) await signUp(name, []);

  const alicePost = await post('alice', 'Cold one after the long run', false);
  const anonPost = await post('bob', 'Nobody needs to know about this one', true);
  const bobPost = await post('bob', 'Bob\'s Friday shower beer', false);
  made.photo = true;
  made.anonymousPost = true;
  await feature('album', async () => {
    // Older releases refuse an unknown "photos" field with 400 rather than a missing route.
    try {
      await post('carol', 'Three-beer album', false, 3);
    } catch (err) {
      if (/answered 400/.test((err as Error).message)) throw new RouteMissing('POST /api/create-post {photos}');
      throw err;
    }
  });

  // Likes, comments and follows: bob's first ones are read below, the later ones stay unread.
  await api('alice', 'POST', '/api/like', { postId: bobPost });
  await api('carol', 'POST', '/api/like', { postId: alicePost });
  await api('dave', 'POST', '/api/like', { postId: anonPost });
  await api('alice', 'POST', '/api/comment', { postId: bobPost, comment: 'Cheers Bob!' });
  await api('carol', 'POST', '/api/comment', { postId: alicePost, comment: 'Earned it' });
  for (const [who, whom] of [['alice', 'bob'], ['carol', 'bob'], ['bob', 'alice'], ['dave', 'alice'], ['frank', 'alice']] as const) {
    await api(who, 'POST', `/api/account/${whom}/follow`);
  }
  made.likes = made.comments = made.follows = true;

  const notifications: Record<string, { unread: number }> = {};
  await feature('notificationsRead', async () => {
    const groups = await api<Array<{ latestTime: number }>>('bob', 'GET', '/api/notifications');
    const upTo = Math.max(...groups.map((g) => g.latestTime));
    await api('bob', 'POST', '/api/notifications/read', { upTo });
    await new Promise((r) => setTimeout(r, 20)); // the next ones are newer than what was read
    await api('erin', 'POST', '/api/like', { postId: bobPost });
    await api('erin', 'POST', '/api/comment', { postId: bobPost, comment: 'Saving this one for later' });
    for (const who of ['alice', 'bob']) notifications[who] = { unread: (await api<{ unread: number }>(who, 'GET', '/api/notifications/unread')).unread };
  });
  if (!made.notificationsRead) await api('erin', 'POST', '/api/comment', { postId: bobPost, comment: 'Saving this one for later' });

  await feature('block', async () => {
    await api('gina', 'POST', '/api/account/frank/block');
  });
  await feature('report', async () => {
    await api('gina', 'POST', '/api/reports', { kind: 'post', id: bobPost, reason: 'spam', note: 'Not a shower beer' });
  });
  await feature('privateAccount', async () => {
    await api('dave', 'PUT', '/api/account/privacy', { isPrivate: true });
    people.find((p) => p.username === 'dave')!.roles.push('private');
  });
  if (made.privateAccount) {
    await feature('followRequest', async () => {
      await api('erin', 'POST', '/api/account/dave/follow');
      const waiting = await api<unknown[]>('dave', 'GET', '/api/follow-requests');
      if (!Array.isArray(waiting) || waiting.length !== 1) throw new Error(`dave's follow requests: ${JSON.stringify(waiting)}`);
    });
  }
  await feature('invite', async () => {
    await api('olga', 'POST', '/api/invites', { expiresInHours: 2160, maxUses: 3 });
  });
  await feature('suspendedAccount', async () => {
    await api('olga', 'POST', '/api/admin/users/frank/suspend', { reason: 'Upgrade fixture: suspended on purpose' });
    people.find((p) => p.username === 'frank')!.roles.push('suspended');
  });
  await feature('removedAccount', async () => {
    await api('gina', 'DELETE', '/api/account', { confirmUsername: 'gina' });
    people.find((p) => p.username === 'gina')!.roles.push('removed');
  });

  const feeds = {
    discover: ((await api<Array<{ postid: number }>>('carol', 'GET', '/api/discover-posts')) ?? []).map((p) => p.postid),
    followFeedOfBob: ((await api<Array<{ postid: number }>>('bob', 'GET', '/api/followFeed')) ?? []).map((p) => p.postid),
  };
  return { format: 1, version, commit, createdAt: new Date().toISOString(), made, people, posts, notifications, feeds };
}
