import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import Fastify from 'fastify';
import fp from 'fastify-plugin';
import t from 'tap';
import { backup } from '../../../scripts/backup.js';
import { restore } from '../../../scripts/restore.js';
import app from '../../src/app.js';
import { loadConfig } from '../../src/kernel/config.js';
import { fastifyOptions } from '../../src/fastify-options.js';
import { bearer, buildTestApp } from '../helpers.js';
import { createPost, makeJpeg, upload } from '../media/upload-helpers.js';

const counts = (sqlite: Database) =>
  sqlite
    .prepare(
      `SELECT (SELECT count(*) FROM posts) AS posts, (SELECT count(*) FROM likes) AS likes,
              (SELECT count(*) FROM comments) AS comments, (SELECT count(*) FROM follows) AS follows,
              (SELECT count(*) FROM users) AS users`,
    )
    .get() as Record<string, number>;

t.test('backup while writes go on, restore into a new DATA_DIR: same posts, counts, images and tokens', async (t) => {
  const { app: live, createUser, config } = await buildTestApp(t, { RATE_LIMIT_WRITES_PER_MINUTE: '100000' });
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const ids: number[] = [];
  for (let i = 0; i < 3; i++) {
    const key = await upload(live, alice.token, await makeJpeg(60, 40));
    const res = await createPost(live, alice.token, { s3Key: key, caption: `post ${i}` });
    ids.push((res.json() as { postid: number }).postid);
  }
  await live.inject({ method: 'POST', url: '/api/account/alice/follow', headers: bearer(bob.token) });

  // Writes keep coming while the backup runs.
  let writing = true;
  let acknowledged = 0;
  const writer = (async () => {
    for (let i = 0; writing; i++) {
      const res = await live.inject({
        method: 'POST',
        url: '/api/comment',
        headers: bearer(bob.token),
        payload: { postId: ids[i % ids.length], comment: `comment ${i}` },
      });
      if (res.statusCode === 201) acknowledged++;
      await new Promise((r) => setImmediate(r));
    }
  })();
  await new Promise((r) => setTimeout(r, 100));
  const dir = mkdtempSync(join(tmpdir(), 'shower-beer-backup-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const manifest = await backup(config, join(dir, 'b1'));
  await new Promise((r) => setTimeout(r, 100));
  writing = false;
  await writer;
  t.ok(acknowledged > 0, `${acknowledged} comments were written during the backup`);
  t.equal(manifest.database.integrity, 'ok');
  t.equal(manifest.database.counts.posts, 3);
  const backedUp = manifest.database.counts.comments ?? -1;
  t.ok(backedUp > 0 && backedUp <= acknowledged, `the snapshot holds a prefix of the writes (${backedUp} of ${acknowledged})`);
  t.ok('files' in manifest.media && manifest.media.files === 6 && manifest.media.missingForPosts.length === 0, 'both images of every post');
  t.ok(manifest.keys.includes('signing-key.json'));

  const target = mkdtempSync(join(tmpdir(), 'shower-beer-restored-'));
  t.teardown(() => rmSync(target, { recursive: true, force: true }));
  const config2 = loadConfig({ DATA_DIR: target, PUBLIC_URL: 'http://localhost:3000', PORT: '1', LOG_LEVEL: 'silent', WEB_DIST_DIR: join(target, 'none') });
  const result = await restore(config2, join(dir, 'b1'));
  t.same(result.counts, manifest.database.counts);
  t.notOk(existsSync(`${config2.databaseFile}-wal`), 'no stale WAL beside the restored database');

  const restored = Fastify(fastifyOptions(config2));
  await restored.register(fp(app), { config: config2 });
  await restored.ready();
  t.teardown(() => restored.close());
  t.same(counts(restored.database.sqlite), {
    posts: 3,
    likes: 0,
    comments: manifest.database.counts.comments,
    follows: 1,
    users: 2,
  });
  const profile = await restored.inject({ method: 'GET', url: '/api/user-posts', headers: bearer(alice.token) });
  t.equal(profile.statusCode, 200, 'tokens issued before the backup still work (the signing key came back)');
  const body = profile.json() as { postCount: number; totalComments: number; followerCount: number; posts: { s3Url: string; thumbnailUrl: string; commentCount: number }[] };
  t.equal(body.postCount, 3);
  t.equal(body.followerCount, 1);
  t.equal(body.totalComments, manifest.database.counts.comments, 'counter columns agree with the rows');
  t.equal(body.posts.reduce((n, p) => n + p.commentCount, 0), manifest.database.counts.comments);
  for (const post of body.posts) {
    t.equal((await restored.inject({ method: 'GET', url: post.s3Url })).statusCode, 200);
    t.equal((await restored.inject({ method: 'GET', url: post.thumbnailUrl })).statusCode, 200);
  }
  const ready = await restored.inject({ method: 'GET', url: '/readyz' });
  t.equal(ready.statusCode, 200);
});

t.test('restore refuses to overwrite data a running process holds open, unless forced', async (t) => {
  const { app: live, createUser, config } = await buildTestApp(t);
  await createUser('alice');
  const dir = mkdtempSync(join(tmpdir(), 'shower-beer-backup-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  await backup(config, join(dir, 'b'));
  await t.rejects(backup(config, join(dir, 'b')), /not empty/, 'never backs up over another backup');

  // Another process (a server) with the target database open.
  const target = mkdtempSync(join(tmpdir(), 'shower-beer-busy-'));
  t.teardown(() => rmSync(target, { recursive: true, force: true }));
  const config2 = loadConfig({ DATA_DIR: target, PORT: '1', LOG_LEVEL: 'silent' });
  await restore(config2, join(dir, 'b'));
  const sqlitePath = createRequire(join(process.cwd(), 'server', 'package.json')).resolve('better-sqlite3');
  const holder = spawn(
    process.execPath,
    ['-e', `const D=require(${JSON.stringify(sqlitePath)});const d=new D(${JSON.stringify(config2.databaseFile)});d.prepare('select 1').get();console.log('open');setInterval(()=>{},1000)`],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  t.teardown(() => void holder.kill('SIGKILL'));
  await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));
  await t.rejects(restore(config2, join(dir, 'b')), /refusing to restore over data in use/);
  const forced = await restore(config2, join(dir, 'b'), { force: true });
  t.equal(forced.counts.users, 1);
  await live.close();
});
