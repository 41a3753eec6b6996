import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import t from 'tap';
import { bearer, buildTestApp, type TestApp } from '../helpers.js';
import { counters, countRows, createPost, makeJpeg, upload } from './upload-helpers.js';

const rawExists = (test: TestApp, key: string) => existsSync(join(test.config.storage.localDir, ...key.split('/')));
const mediaDirs = (test: TestApp) => {
  const dir = join(test.config.storage.localDir, 'media');
  return existsSync(dir) ? readdirSync(dir) : [];
};

t.test('a post: images made, served, sized, and counted', async (t) => {
  const test = await buildTestApp(t);
  const { app, createUser } = test;
  const alice = await createUser('alice');
  const key = await upload(app, alice.token, await makeJpeg(2400, 1600));

  const res = await createPost(app, alice.token, { s3Key: key, caption: '  After the 10k run  ', isAnonymous: false });
  t.equal(res.statusCode, 201);
  const post = res.json();
  t.match(post, {
    postid: Number,
    s3Url: /^\/media\/[A-Za-z0-9_-]{22}\/display\.webp$/,
    thumbnailUrl: /^\/media\/[A-Za-z0-9_-]{22}\/thumb\.webp$/,
    width: 1440,
    height: 960,
    caption: 'After the 10k run',
    isAnonymous: false,
    username: 'alice',
  });
  t.ok(Math.abs(Date.parse(post.created_at) - Date.now()) < 60_000, 'created_at is an ISO time of now');

  const display = await app.inject({ method: 'GET', url: post.s3Url });
  t.equal(display.statusCode, 200);
  t.equal(display.headers['content-type'], 'image/webp');
  t.equal(display.headers['cache-control'], 'public, max-age=31536000, immutable');
  const dMeta = await sharp(display.rawPayload).metadata();
  t.equal(dMeta.format, 'webp');
  t.same([dMeta.width, dMeta.height], [1440, 960]);

  const thumb = await app.inject({ method: 'GET', url: post.thumbnailUrl });
  t.equal(thumb.statusCode, 200);
  const tMeta = await sharp(thumb.rawPayload).metadata();
  t.equal(tMeta.format, 'webp');
  t.ok(tMeta.width! <= 400 && tMeta.height! <= 400, `thumbnail ${tMeta.width}×${tMeta.height}`);
  t.ok(thumb.rawPayload.length < 40_000, `thumbnail is ${thumb.rawPayload.length} bytes`);

  t.notOk(rawExists(test, key), 'the raw upload is removed');
  t.match(counters(app, alice.id), { postCount: 1, publicPostCount: 1 });
  const row = app.database.sqlite.prepare('SELECT * FROM posts WHERE id = ?').get(post.postid) as Record<string, unknown>;
  t.match(row, { user_id: alice.id, caption: 'After the 10k run', is_anonymous: 0, is_profile_picture: 0, width: 1440, height: 960 });

  const missing = await app.inject({ method: 'GET', url: '/media/AAAAAAAAAAAAAAAAAAAAAA/display.webp' });
  t.equal(missing.statusCode, 404);
  t.match(missing.json(), { error: 'not_found' });
});

t.test('small images are not enlarged; portrait EXIF orientation is applied', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const small = await upload(app, alice.token, await makeJpeg(300, 200));
  const a = (await createPost(app, alice.token, { s3Key: small, caption: 'tiny' })).json();
  t.same([a.width, a.height], [300, 200]);

  // Stored landscape, orientation 6 says "rotate 90° clockwise to view".
  const rotated = await sharp(await makeJpeg(1600, 1200)).withMetadata({ orientation: 6 }).jpeg().toBuffer();
  const key = await upload(app, alice.token, rotated);
  const b = (await createPost(app, alice.token, { s3Key: key, caption: 'portrait' })).json();
  t.same([b.width, b.height], [1080, 1440], 'shown upright, as the camera meant');
  const meta = await sharp((await app.inject({ method: 'GET', url: b.s3Url })).rawPayload).metadata();
  t.same([meta.width, meta.height], [1080, 1440]);
  t.equal(meta.orientation, undefined, 'no orientation tag left');
});

t.test('location and camera metadata never reach the served images', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const jpeg = await makeJpeg(1200, 900, { exif: true });
  const source = await sharp(jpeg).metadata();
  t.ok(source.exif && source.exif.includes(Buffer.from('Secret Model 3000')), 'the test image carries EXIF');
  t.ok(source.exif!.includes(Buffer.from('GPS')) || source.exif!.length > 100, 'and GPS');

  const key = await upload(app, alice.token, jpeg);
  const post = (await createPost(app, alice.token, { s3Key: key, caption: 'where was I?' })).json();
  for (const url of [post.s3Url, post.thumbnailUrl]) {
    const body = (await app.inject({ method: 'GET', url })).rawPayload;
    const meta = await sharp(body).metadata();
    t.equal(meta.exif, undefined, `${url}: no EXIF`);
    t.equal(meta.xmp, undefined, `${url}: no XMP`);
    t.equal(meta.icc, undefined, `${url}: no ICC`);
    t.notOk(body.includes(Buffer.from('Secret Model 3000')), `${url}: no camera model bytes`);
    t.notOk(body.includes(Buffer.from('Exif')), `${url}: no Exif chunk`);
  }
});

t.test('files that are not (whole) images are refused with 422 and removed', async (t) => {
  const test = await buildTestApp(t);
  const { app, createUser } = test;
  const alice = await createUser('alice');

  const cases: [string, Buffer][] = [
    ['HTML with an image type', Buffer.from('<html><script>alert(1)</script></html>')],
    ['truncated JPEG', (await makeJpeg(800, 600)).subarray(0, 20_000)],
    ['SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>')],
    ['empty file', Buffer.alloc(0)],
  ];
  for (const [label, bytes] of cases) {
    const key = await upload(app, alice.token, bytes, label === 'SVG' ? 'image/svg+xml' : 'image/jpeg');
    const res = await createPost(app, alice.token, { s3Key: key, caption: label });
    t.equal(res.statusCode, 422, label);
    t.match(res.json(), { error: 'unprocessable_image', message: /not an image we can read/ }, label);
    t.notOk(rawExists(test, key), `${label}: raw removed`);
  }
  t.equal(countRows(app, 'posts'), 0);
  t.same(mediaDirs(test), [], 'no media written');
  t.match(counters(app, alice.id), { postCount: 0, publicPostCount: 0 });
});

t.test('decompression bombs are refused before decoding', async (t) => {
  await t.test('an image above IMAGE_MAX_PIXELS', async (t) => {
    const test = await buildTestApp(t, { IMAGE_MAX_PIXELS: '1000000' });
    const alice = await test.createUser('alice');
    const key = await upload(test.app, alice.token, await makeJpeg(1200, 900));
    const res = await createPost(test.app, alice.token, { s3Key: key, caption: 'big' });
    t.equal(res.statusCode, 422);
    t.match(res.json().message, /1200×900 pixels is more than the 1,000,000 allowed/);
    t.notOk(rawExists(test, key));
    t.equal(countRows(test.app, 'posts'), 0);
  });

  await t.test('a tiny PNG declaring 100000×100000 pixels', async (t) => {
    const test = await buildTestApp(t);
    const alice = await test.createUser('alice');
    const key = await upload(test.app, alice.token, await pngClaiming(100_000, 100_000), 'image/png');
    const res = await createPost(test.app, alice.token, { s3Key: key, caption: 'bomb' });
    t.equal(res.statusCode, 422);
    t.match(res.json().message, /100000×100000 pixels/);
    t.equal(countRows(test.app, 'posts'), 0);
  });
});

t.test('keys: unknown 404, someone else’s 403, not uploaded or reused 409', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const key = await upload(app, alice.token, await makeJpeg(400, 300));

  const theft = await createPost(app, bob.token, { s3Key: key, caption: 'mine now' });
  t.equal(theft.statusCode, 403);
  t.match(theft.json(), { error: 'forbidden' });

  for (const s3Key of [`uploads/${alice.id}/00000000-0000-4000-8000-000000000000`, '../../keys/upload-url-secret', 'media/x/display.webp']) {
    t.equal((await createPost(app, alice.token, { s3Key, caption: 'x' })).statusCode, 404, s3Key);
  }

  const pending = (
    await app.inject({ method: 'POST', url: '/api/presign-upload', headers: bearer(alice.token), payload: { fileName: 'a', fileType: 'image/png' } })
  ).json().s3Key;
  const early = await createPost(app, alice.token, { s3Key: pending, caption: 'too soon' });
  t.equal(early.statusCode, 409);
  t.match(early.json().message, /not been uploaded/);

  t.equal((await createPost(app, alice.token, { s3Key: key, caption: 'first' })).statusCode, 201);
  const again = await createPost(app, alice.token, { s3Key: key, caption: 'again' });
  t.equal(again.statusCode, 409);
  t.equal(countRows(app, 'posts'), 1);
  t.match(counters(app, alice.id), { postCount: 1 });
});

t.test('two concurrent create-post calls with one key make one post', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const key = await upload(app, alice.token, await makeJpeg(600, 400));
  const results = await Promise.all([1, 2, 3].map((i) => createPost(app, alice.token, { s3Key: key, caption: `try ${i}` })));
  t.same(results.map((r) => r.statusCode).sort(), [201, 409, 409]);
  t.equal(countRows(app, 'posts'), 1);
  t.match(counters(app, alice.id), { postCount: 1, publicPostCount: 1 });
});

t.test('caption rules: required, not blank, at most 2200; nothing is written otherwise', async (t) => {
  const test = await buildTestApp(t);
  const { app, createUser } = test;
  const alice = await createUser('alice');
  const key = await upload(app, alice.token, await makeJpeg(400, 300));
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['missing', { s3Key: key }, /caption is required/],
    ['blank', { s3Key: key, caption: ' \n\t ' }, /cannot be blank/],
    ['2201 characters', { s3Key: key, caption: 'x'.repeat(2201) }, /at most 2200/],
  ];
  for (const [label, body, message] of cases) {
    const res = await createPost(app, alice.token, body);
    t.equal(res.statusCode, 400, label);
    t.match(res.json(), { error: 'invalid_request', message }, label);
  }
  t.equal(countRows(app, 'posts'), 0);
  t.same(mediaDirs(test), []);
  t.match(counters(app, alice.id), { postCount: 0, publicPostCount: 0 });
  const row = app.database.sqlite.prepare('SELECT status FROM uploads WHERE key = ?').get(key) as { status: string };
  t.equal(row.status, 'uploaded', 'the upload is still usable');
  t.ok(rawExists(test, key));

  const ok = await createPost(app, alice.token, { s3Key: key, caption: 'y'.repeat(2200) });
  t.equal(ok.statusCode, 201, '2200 characters are fine');
  t.equal(ok.json().caption.length, 2200);
});

t.test('anonymous posts are flagged and not counted as public', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const key = await upload(app, alice.token, await makeJpeg(400, 300));
  const res = await createPost(app, alice.token, { s3Key: key, caption: 'who, me?', isAnonymous: true });
  t.equal(res.statusCode, 201);
  t.match(res.json(), { isAnonymous: true, profilePictureUrl: null });
  const row = app.database.sqlite.prepare('SELECT is_anonymous FROM posts WHERE id = ?').get(res.json().postid) as {
    is_anonymous: number;
  };
  t.equal(row.is_anonymous, 1);
  t.match(counters(app, alice.id), { postCount: 1, publicPostCount: 0 });
});

t.test('a profile picture sets the picture and makes no visible post', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const key = await upload(app, alice.token, await makeJpeg(800, 800), 'image/jpeg', { isProfilePicture: true });
  const res = await createPost(app, alice.token, { s3Key: key, isProfilePicture: true });
  t.equal(res.statusCode, 201);
  const { profilePictureUrl } = res.json();
  t.match(profilePictureUrl, /^\/media\/[A-Za-z0-9_-]{22}\/thumb\.webp$/);
  t.same(Object.keys(res.json()), ['profilePictureUrl']);
  const img = await app.inject({ method: 'GET', url: profilePictureUrl });
  t.equal(img.statusCode, 200);

  const user = counters(app, alice.id);
  t.equal(user.postCount, 0, 'not counted');
  t.equal(user.publicPostCount, 0);
  t.equal(`/media/${user.profilePictureKey}/thumb.webp`, profilePictureUrl);
  const rows = app.database.sqlite.prepare('SELECT is_profile_picture FROM posts').all() as { is_profile_picture: number }[];
  t.same(rows, [{ is_profile_picture: 1 }], 'stored as a profile-picture post');

  // A later post shows the picture as its author's.
  const key2 = await upload(app, alice.token, await makeJpeg(400, 300));
  const post = await createPost(app, alice.token, { s3Key: key2, caption: 'with my face' });
  t.equal(post.json().profilePictureUrl, profilePictureUrl);
});

/** A valid PNG header (signature + IHDR with a correct CRC) claiming a huge size, then a tiny IDAT and IEND. */
async function pngClaiming(width: number, height: number): Promise<Buffer> {
  const real = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#000' } }).png().toBuffer();
  const ihdr = Buffer.from(real.subarray(8, 8 + 25)); // length(4) type(4) data(13) crc(4)
  ihdr.writeUInt32BE(width, 8);
  ihdr.writeUInt32BE(height, 12);
  ihdr.writeUInt32BE(crc32(ihdr.subarray(4, 21)), 21);
  return Buffer.concat([real.subarray(0, 8), ihdr, real.subarray(33)]);
}

function crc32(buf: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of buf) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
