import { Readable } from 'node:stream';
import t from 'tap';
import { processImage } from '../../src/media/images/pipeline.js';
import { bearer, buildTestApp } from '../helpers.js';
import { countRows, createPost, injectUrl, makeJpeg, presign, upload } from './upload-helpers.js';

/** What one post of this photo stores (display + thumb), measured with the real pipeline. */
async function storedSize(photo: Buffer) {
  const p = await processImage(Readable.from([photo]), { maxPixels: 1e8, maxBytes: 1e8 });
  return p.display.length + p.thumb.length;
}

t.test('uploads past the per-user quota are refused with 413; deleting a post frees the space', async (t) => {
  const photo = await makeJpeg(640, 480);
  const size = await storedSize(photo);
  // Room for one post and a half.
  const { app, createUser } = await buildTestApp(t, { USER_STORAGE_QUOTA_BYTES: String(Math.floor(size * 1.5)) });
  const alice = await createUser('alice');
  const bob = await createUser('bob');

  const first = await createPost(app, alice.token, { s3Key: await upload(app, alice.token, photo), caption: 'one' });
  t.equal(first.statusCode, 201);
  const storage = await app.inject({ url: '/api/storage', headers: bearer(alice.token) });
  t.same(storage.json(), { usedBytes: size, quotaBytes: Math.floor(size * 1.5) }, 'counted from the stored images');
  t.equal(storage.headers['cache-control'], 'no-store');

  const key = await upload(app, alice.token, photo);
  const second = await createPost(app, alice.token, { s3Key: key, caption: 'two' });
  t.equal(second.statusCode, 413);
  t.equal(second.json().error, 'storage_quota_exceeded');
  t.match(second.json().message, /^Not enough storage left: this photo needs [\d.]+ KB, and [\d.]+ KB of your [\d.]+ KB is free\. Delete some posts to make room\.$/);
  t.equal(countRows(app, 'posts'), 1, 'no post was made');
  t.equal(await app.storage.stat(key), null, 'the raw upload is not kept');

  t.equal((await createPost(app, bob.token, { s3Key: await upload(app, bob.token, photo), caption: 'bob' })).statusCode, 201, 'the quota is per user');

  const del = await app.inject({ method: 'DELETE', url: `/api/post?postId=${first.json().postid}`, headers: bearer(alice.token) });
  t.equal(del.statusCode, 200);
  t.equal((await app.inject({ url: '/api/storage', headers: bearer(alice.token) })).json().usedBytes, 0, 'deleting frees it');
  const again = await createPost(app, alice.token, { s3Key: await upload(app, alice.token, photo), caption: 'again' });
  t.equal(again.statusCode, 201, 'and a new post fits');
});

t.test('a full account cannot start or send an upload', async (t) => {
  const photo = await makeJpeg(320, 240);
  const size = await storedSize(photo);
  const { app, createUser } = await buildTestApp(t, { USER_STORAGE_QUOTA_BYTES: String(size) });
  const alice = await createUser('alice');
  const early = (await presign(app, alice.token, { fileName: 'p.jpg', fileType: 'image/jpeg' })).json() as { uploadUrl: string; s3Key: string };
  t.equal((await createPost(app, alice.token, { s3Key: await upload(app, alice.token, photo), caption: 'fits exactly' })).statusCode, 201);
  const put = await app.inject({ method: 'PUT', url: injectUrl(early.uploadUrl), headers: { 'content-type': 'image/jpeg' }, payload: photo });
  t.equal(put.statusCode, 413, 'a link presigned before the account filled up cannot park raw bytes');
  t.equal(await app.storage.stat(early.s3Key), null);
  const full = await presign(app, alice.token, { fileName: 'p.jpg', fileType: 'image/jpeg' });
  t.equal(full.statusCode, 413);
  t.match(full.json(), { error: 'storage_quota_exceeded', message: /^Your storage is full: you use [\d.]+ KB of your [\d.]+ KB\. Delete some posts to make room\.$/ });
});

t.test('20 create-posts at once near the quota, 4 images at a time, end at or below it', async (t) => {
  const photo = await makeJpeg(640, 480);
  const size = await storedSize(photo);
  const quota = 4_000_000;
  const { app, createUser } = await buildTestApp(t, { USER_STORAGE_QUOTA_BYTES: String(quota), IMAGE_CONCURRENCY: '4' });
  const alice = await createUser('alice');
  const keys: string[] = [];
  for (let i = 0; i < 20; i++) keys.push(await upload(app, alice.token, photo));
  // Already stored: all but room for two and a half of these posts.
  const filler = quota - Math.floor(size * 2.5);
  app.database.sqlite
    .prepare(`INSERT INTO posts (user_id, caption, media_key, width, height, created_at, stored_bytes) VALUES (?, 'filler', 'filler', 1, 1, 1, ?)`)
    .run(alice.id, filler);

  const answers = await Promise.all(keys.map((s3Key, i) => createPost(app, alice.token, { s3Key, caption: `at once ${i}` })));
  const statuses = answers.map((a) => a.statusCode);
  const made = statuses.filter((s) => s === 201).length;
  t.ok(statuses.every((s) => s === 201 || s === 413 || s === 503), `only 201, 413 and 503: ${statuses.join(' ')}`);
  const used = (await app.inject({ url: '/api/storage', headers: bearer(alice.token) })).json().usedBytes as number;
  t.comment(`quota ${quota} bytes, ${made} posts of ${size} bytes made, ${used} bytes used (${(used / quota).toFixed(4)} of the quota)`);
  t.ok(used <= quota, `at or below the quota: ${used} <= ${quota}`);
  t.equal(made, 2, 'the two that fit are made');
  t.equal(used, filler + made * size, 'what is used is what the posts store');
});
