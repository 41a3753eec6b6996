// Today's server on the data each earlier release wrote (tests/fixtures/releases/, made by
// scripts/release-fixture.ts with that release's own code): the upgrade a self-hoster does
// with `git pull` and a restart (docs/self-hosting.md, "Upgrade"). Nothing here rebuilds an
// old commit: the fixtures are committed.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { restore } from '../../../scripts/restore.js';
import { counterSums, FIXTURE_DB, FIXTURES_DIR, rowDigest, tableCounts, type FixtureManifest } from '../../../scripts/release-fixtures-lib.js';
import { loadConfig, type Config } from '../../src/kernel/config.js';
import { readJournal } from '../../src/kernel/db/client.js';
import { readZip } from '../export/unzip.js';
import { bearer } from '../helpers.js';
import { createPost, makeJpeg, upload } from '../media/upload-helpers.js';
import { startToday, tempDir, type Teardown } from './today.js';

/**
 * Tables whose values a migration since a release may change, and why (their row counts are
 * still checked). Every other table the release had keeps every row as the release wrote it.
 */
const DERIVED: Record<string, string> = {
  // A cache's invalidation counter, not data: migration 0004's update trigger moves it when
  // 0012 fills comments.recipient_id, so readers drop the first comments they kept.
  comments_epoch: 'moved by the update triggers of migration 0004',
};

const fixtures = existsSync(FIXTURES_DIR) ? readdirSync(FIXTURES_DIR).filter((name) => existsSync(join(FIXTURES_DIR, name, 'manifest.json'))).sort() : [];

interface Started {
  app: FastifyInstance;
  config: Config;
}

/**
 * Today's server, in-process, on a DATA_DIR (./today.ts), with sign-ins unthrottled for the many
 * below. The fixtures' raw uploads were written on the day each fixture was made; at start the
 * orphan sweep (server/src/media/orphan-sweep.ts, tested in server/test/media/) removes raw
 * uploads older than UPLOAD_ORPHAN_TTL_SECONDS (a day), which would make the row counts below
 * depend on the fixtures' age. Its window is set to a century here: the upgrade must keep every row.
 */
async function startOn(t: Teardown, dataDir: string): Promise<Started> {
  const { server, config } = await startToday(t, dataDir, { RATE_LIMIT_AUTH_PER_MINUTE: '1000', UPLOAD_ORPHAN_TTL_SECONDS: String(100 * 365 * 24 * 3600) });
  return { app: server, config };
}

/** A copy of a fixture laid out as a DATA_DIR: the database, the signing keys, the photos. */
function dataDirFrom(t: Teardown, fixture: string): string {
  const dataDir = tempDir(t, 'shower-beer-upgrade-');
  cpSync(join(fixture, FIXTURE_DB), join(dataDir, FIXTURE_DB));
  cpSync(join(fixture, 'keys'), join(dataDir, 'keys'), { recursive: true });
  cpSync(join(fixture, 'storage'), join(dataDir, 'storage'), { recursive: true });
  return dataDir;
}

/** Signs in on the embedded provider's own page, as a person types it; the status and the token. */
async function signIn(server: FastifyInstance, username: string, password: string): Promise<{ status: number; token: string | null }> {
  const config = (await server.inject({ url: '/config.json' })).json() as { auth: { clientId: string; redirectUri: string } };
  const oauth = { response_type: 'token', client_id: config.auth.clientId, redirect_uri: config.auth.redirectUri, scope: 'email openid profile', state: 'upgrade' };
  const page = await server.inject({ url: `/oauth2/authorize?${new URLSearchParams(oauth)}` });
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  const cookie = String(page.headers['set-cookie'] ?? '').split(';')[0]!;
  const res = await server.inject({
    method: 'POST',
    url: '/oauth2/authorize',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ ...oauth, csrf_token: csrf, username, password }).toString(),
  });
  const location = String(res.headers.location ?? '');
  return { status: res.statusCode, token: new URLSearchParams(location.slice(location.indexOf('#') + 1)).get('access_token') };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

for (const name of fixtures) {
  const dir = join(FIXTURES_DIR, name);
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as FixtureManifest;

  t.test(`${manifest.version} (${manifest.commit}): today's server opens its data and loses nothing`, async (t) => {
    const dataDir = dataDirFrom(t, dir);
    const journal = readJournal(join(import.meta.dirname, '..', '..', '..', 'migrations'));
    const { app: server } = await startOn(t, dataDir);
    const db = server.database.sqlite;

    // Migrations ran at start: the ones the release lacked, exactly, in order.
    const had = new Set(manifest.migrations.map((m) => m.createdAt));
    t.same(
      server.database.applied,
      journal.filter((e) => !had.has(e.when)).map((e) => e.tag),
      `applied at start: the ${journal.length - manifest.migrations.length} migrations ${manifest.version} lacked`,
    );
    t.equal((db.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n, journal.length, 'every migration recorded');

    // Rows and counters: the release's, except what a migration derives (DERIVED says why).
    const now = tableCounts(db);
    for (const [table, count] of Object.entries(manifest.tables)) {
      if (table === '__drizzle_migrations') continue;
      t.equal(now[table], count, `${table}: ${count} rows as ${manifest.version} left them`);
    }
    // Every row keeps its values in every column the release had (a migration's rebuild included).
    for (const [table, { columns, sha256: digest }] of Object.entries(manifest.rows)) {
      if (table === '__drizzle_migrations' || DERIVED[table]) continue;
      t.equal(rowDigest(db, table, columns), digest, `${table}: every row's ${columns.length} columns as ${manifest.version} wrote them`);
    }
    const sums = counterSums(db);
    for (const [column, sum] of Object.entries(manifest.counters)) t.equal(sums[column], sum, `sum of ${column}`);

    t.equal(db.pragma('integrity_check', { simple: true }), 'ok', 'integrity_check');
    t.same(db.pragma('foreign_key_check'), [], 'foreign_key_check: no row points at a missing one');
    // Migration 0041 rebuilt reports (reporter_id nullable, for reports other servers send): its indexes came back with it.
    t.same(
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'reports' AND sql IS NOT NULL ORDER BY name").pluck().all(),
      ['reports_comment_idx', 'reports_open_idx', 'reports_open_remote_unique', 'reports_open_unique'],
      "reports' indexes after its rebuild",
    );

    // Old passwords sign in on today's provider; the suspended and the removed do not.
    const tokens = new Map<string, string>();
    for (const person of manifest.people) {
      const res = await signIn(server, person.username, person.password);
      if (person.roles.includes('removed')) t.equal(res.status, 400, `${person.username} (removed): the wrong-password answer`);
      else if (person.roles.includes('suspended')) t.equal(res.status, 403, `${person.username} (suspended): refused`);
      else {
        t.equal(res.status, 303, `${person.username} signs in with the password set on ${manifest.version}`);
        t.ok(res.token, `${person.username} gets a token`);
        tokens.set(person.username, res.token!);
      }
    }
    const as = (who: string) => bearer(tokens.get(who)!);

    // Every stored photo answers with the bytes the release stored.
    for (const [url, hash] of Object.entries(manifest.photos)) {
      const res = await server.inject({ url });
      t.equal(res.statusCode, 200, url);
      t.equal(sha256(res.rawPayload), hash, `${url}: the same bytes`);
    }

    // The feeds, profiles, notifications and the export read the old content.
    const discover = (await server.inject({ url: '/api/discover-posts', headers: as('carol') })).json() as Array<{ postid: number; caption: string; username: string; s3Url: string; isAnonymous: boolean }>;
    for (const post of manifest.posts) {
      const shown = discover.find((p) => p.postid === post.postid);
      t.ok(shown, `Discover shows "${post.caption}"`);
      t.equal(shown?.caption, post.caption, 'with its caption');
      t.equal(shown?.s3Url, post.s3Url, 'with the same photo URL');
      if (post.isAnonymous) t.not(shown?.username, post.author, 'the anonymous post still hides its author');
      else t.equal(shown?.username, post.author);
    }
    const following = (await server.inject({ url: '/api/followFeed', headers: as('bob') })).json() as Array<{ postid: number }>;
    const alicePost = manifest.posts.find((p) => p.author === 'alice')!;
    t.ok(following.some((p) => p.postid === alicePost.postid), 'bob\'s Following feed has alice\'s post');
    const profile = (await server.inject({ url: '/api/view-user-posts?username=alice', headers: as('bob') })).json() as { username: string; posts: Array<{ postid: number }> };
    t.equal(profile.username, 'alice');
    t.ok(profile.posts.some((p) => p.postid === alicePost.postid), 'alice\'s profile shows her post');
    const comments = (await server.inject({ url: `/api/comment?postId=${manifest.posts.find((p) => p.caption.startsWith('Bob'))!.postid}`, headers: as('bob') })).json() as Array<{ content: string; username: string }>;
    t.ok(comments.some((c) => c.content === 'Cheers Bob!' && c.username === 'alice'), 'alice\'s comment on bob\'s post');

    const groups = (await server.inject({ url: '/api/notifications', headers: as('bob') })).json() as Array<{ kind: string; unread: boolean }>;
    t.ok(groups.some((g) => g.kind === 'like'), 'bob\'s notifications have the likes of his post');
    t.ok(groups.some((g) => g.kind === 'comment'), 'and the comments');
    const unread = (await server.inject({ url: '/api/notifications/unread', headers: as('bob') })).json() as { unread: number };
    if (manifest.notifications.bob) t.equal(unread.unread, manifest.notifications.bob.unread, 'bob\'s unread count as he left it');
    else t.ok(unread.unread > 0, 'activity from before notifications existed is there to read');

    const exported = await server.inject({ url: '/api/export', headers: as('bob') });
    t.equal(exported.statusCode, 200, 'export');
    const data = JSON.parse(readZip(exported.rawPayload).find((e) => e.name === 'data.json')!.data.toString('utf8')) as { posts: Array<{ caption: string }> };
    for (const post of manifest.posts.filter((p) => p.author === 'bob')) t.ok(data.posts.some((p) => p.caption === post.caption), `bob's export has "${post.caption}"`);

    // A write after the upgrade: a new photo post, a like and a comment on an old post.
    const key = await upload(server, tokens.get('bob')!, await makeJpeg(320, 240));
    const created = await createPost(server, tokens.get('bob')!, { s3Key: key, caption: 'First one after the upgrade', isAnonymous: false });
    t.equal(created.statusCode, 201, 'a new post');
    t.equal((await server.inject({ method: 'POST', url: '/api/like', headers: as('bob'), payload: { postId: alicePost.postid } })).statusCode, 201, 'a like of an old post');
    t.equal(
      (await server.inject({ method: 'POST', url: '/api/comment', headers: as('bob'), payload: { postId: alicePost.postid, comment: 'Still cold after the upgrade' } })).statusCode,
      201,
      'a comment on an old post',
    );
    t.equal(db.pragma('integrity_check', { simple: true }), 'ok', 'still intact after the writes');
  });

  if (manifest.backup) {
    t.test(`${manifest.version} (${manifest.commit}): a backup its own npm run backup made restores into today's`, async (t) => {
      const dataDir = tempDir(t, 'shower-beer-upgrade-restore-');
      const config = loadConfig({ DATA_DIR: dataDir, PORT: '1', HOST: '127.0.0.1' });
      const result = await restore(config, join(dir, manifest.backup!));
      t.equal(result.counts.posts, manifest.tables.posts, 'the backup holds the posts');
      const { app: server } = await startOn(t, dataDir);
      for (const table of ['users', 'posts', 'likes', 'comments', 'follows']) {
        const { columns, sha256: digest } = manifest.rows[table]!;
        t.equal(rowDigest(server.database.sqlite, table, columns), digest, `${table}: migrated, every row as ${manifest.version} wrote it`);
      }
      const alice = manifest.people.find((p) => p.username === 'alice')!;
      const signedIn = await signIn(server, alice.username, alice.password);
      t.equal(signedIn.status, 303, 'alice signs in with her old password on the restored data');
      const post = manifest.posts.find((p) => p.author === 'alice')!;
      const photo = await server.inject({ url: post.s3Url });
      t.equal(photo.statusCode, 200);
      t.equal(sha256(photo.rawPayload), manifest.photos[post.s3Url], 'her photo, the same bytes');
    });
  }
}

t.test('the committed release fixtures are there and small', async (t) => {
  t.ok(fixtures.length >= 3, `${fixtures.length} fixtures in tests/fixtures/releases`);
  const size = (p: string): number => (readdirSync(p, { withFileTypes: true }) as Array<{ name: string; isDirectory(): boolean }>).reduce(
    (sum, e) => sum + (e.isDirectory() ? size(join(p, e.name)) : readFileSync(join(p, e.name)).length),
    0,
  );
  for (const name of fixtures) t.ok(size(join(FIXTURES_DIR, name)) < 2 * 1024 * 1024, `${name} is under 2 MiB`);
});
