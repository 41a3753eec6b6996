import { existsSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { buildTestApp } from '../helpers.js';
import { countRows, createPost, injectUrl, makeJpeg, presign, upload } from './upload-helpers.js';

const HOUR = 3600_000;

t.test('uploads never turned into posts are removed after the TTL, rows and files', async (t) => {
  const test = await buildTestApp(t, { UPLOAD_ORPHAN_TTL_SECONDS: '3600' });
  const { app, createUser, config } = test;
  const alice = await createUser('alice');
  const onDisk = (key: string) => existsSync(join(config.storage.localDir, ...key.split('/')));
  const jpeg = await makeJpeg(300, 200);

  const uploaded = await upload(app, alice.token, jpeg);
  const pending = (await presign(app, alice.token, { fileName: 'a.jpg', fileType: 'image/jpeg' })).json().s3Key as string;
  const posted = await upload(app, alice.token, jpeg);
  const post = (await createPost(app, alice.token, { s3Key: posted, caption: 'kept' })).json();
  // A raw file with no row (a crash between writing and recording), ten minutes old.
  const stray = `uploads/${alice.id}/11111111-1111-4111-8111-111111111111`;
  await app.storage.write(stray, Buffer.from('left behind'), 'image/jpeg');
  const old = new Date(Date.now() - 10 * 60_000);
  utimesSync(join(config.storage.localDir, ...stray.split('/')), old, old);

  // Within the TTL nothing goes.
  t.same(await app.sweepOrphanUploads(Date.now() + 30 * 60_000), { rows: 0, files: 0 });
  t.equal(countRows(app, 'uploads'), 3);
  t.ok(onDisk(uploaded));

  // After it: the unused uploads and the stray file go; the post's images stay.
  const swept = await app.sweepOrphanUploads(Date.now() + HOUR + 60_000);
  t.equal(swept.rows, 3, 'pending, uploaded and used rows');
  t.equal(swept.files, 2, 'the uploaded raw file and the stray one');
  t.equal(countRows(app, 'uploads'), 0);
  t.notOk(onDisk(uploaded));
  t.notOk(onDisk(stray));
  t.equal((await app.inject({ method: 'GET', url: post.s3Url })).statusCode, 200, 'processed media untouched');
  t.equal(countRows(app, 'posts'), 1);

  // A swept upload cannot be used any more.
  t.equal((await createPost(app, alice.token, { s3Key: uploaded, caption: 'late' })).statusCode, 404);
  t.equal((await createPost(app, alice.token, { s3Key: pending, caption: 'late' })).statusCode, 404);
});

t.test('a fresh raw file without a row is kept until it is old', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const res = await presign(app, alice.token, { fileName: 'a.jpg', fileType: 'image/jpeg' });
  const { uploadUrl, s3Key } = res.json();
  const put = await app.inject({ method: 'PUT', url: injectUrl(uploadUrl), headers: { 'content-type': 'image/jpeg' }, payload: 'bytes' });
  t.equal(put.statusCode, 200);
  app.database.sqlite.prepare('DELETE FROM uploads').run();
  t.same(await app.sweepOrphanUploads(), { rows: 0, files: 0 });
  t.ok(await app.storage.stat(s3Key), 'young file kept');
  t.same(await app.sweepOrphanUploads(Date.now() + 25 * HOUR), { rows: 0, files: 1 });
  t.equal(await app.storage.stat(s3Key), null);
});
