import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import t from 'tap';
import { processImage } from '../../src/media/images/pipeline.js';
import { bearer, buildTestApp, type TestApp } from '../helpers.js';
import { counters, countRows, createPost, makeJpeg, upload } from './upload-helpers.js';

const rawExists = (test: TestApp, key: string) => existsSync(join(test.config.storage.localDir, ...key.split('/')));
const mediaDirs = (test: TestApp) => {
  const dir = join(test.config.storage.localDir, 'media');
  return existsSync(dir) ? readdirSync(dir) : [];
};
const uploadStatus = (test: TestApp, key: string) =>
  test.app.database.sqlite.prepare<[string], string>('SELECT status FROM uploads WHERE key = ?').pluck().get(key);

interface PhotoJson {
  s3Url: string;
  thumbnailUrl: string;
  width: number;
  height: number;
  mediumUrl: string | null;
  mediumWidth: number;
  altText: string;
}

t.test('an album of 3: each photo processed on its own, in the order sent, with its own description', async (t) => {
  const test = await buildTestApp(t);
  const { app, createUser } = test;
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const keys = [
    await upload(app, alice.token, await makeJpeg(1600, 1200, { exif: true })),
    await upload(app, alice.token, await makeJpeg(600, 900)),
    await upload(app, alice.token, await makeJpeg(2000, 800)),
  ];
  const res = await createPost(app, alice.token, {
    caption: 'Three from the lake',
    photos: [
      { s3Key: keys[0], altText: '  The pier at dawn ' },
      { s3Key: keys[1], altText: 'A heron, standing' },
      { s3Key: keys[2] },
    ],
  });
  t.equal(res.statusCode, 201, res.body);
  const post = res.json() as { postid: number; s3Url: string; width: number; height: number; altText: string; photos: PhotoJson[] };
  t.equal(post.photos.length, 3);
  t.same(post.photos.map((p) => [p.width, p.height]), [[1440, 1080], [600, 900], [1440, 576]], 'each keeps its own size and aspect');
  t.same(post.photos.map((p) => p.altText), ['The pier at dawn', 'A heron, standing', ''], 'descriptions cleaned, in order');
  t.equal(post.s3Url, post.photos[0]!.s3Url, 'the single-photo fields are the first photo');
  t.same([post.width, post.height, post.altText], [1440, 1080, 'The pier at dawn']);
  t.equal(new Set(post.photos.map((p) => p.s3Url)).size, 3, 'three different images');
  t.equal(post.photos[0]!.mediumWidth, 768, 'a wide photo has its medium rendition');
  t.equal(post.photos[1]!.mediumUrl, null, 'a small one has none');

  for (const photo of post.photos) {
    const served = await app.inject({ method: 'GET', url: photo.s3Url });
    t.equal(served.statusCode, 200);
    const meta = await sharp(served.rawPayload).metadata();
    t.same([meta.format, meta.width, meta.height], ['webp', photo.width, photo.height]);
    t.equal(meta.exif, undefined, 'no metadata left');
    t.equal((await app.inject({ method: 'GET', url: photo.thumbnailUrl })).statusCode, 200);
  }
  for (const key of keys) t.notOk(rawExists(test, key), 'raw uploads removed, never served');
  t.match(counters(app, alice.id), { postCount: 1, publicPostCount: 1 }, 'one post, however many photos');

  // Every feed and profile gives the same photos in the same order, in the one page request.
  const discover = await app.inject({ url: '/api/discover-posts', headers: bearer(bob.token) });
  t.same((discover.json() as { photos: PhotoJson[] }[])[0]!.photos, post.photos, 'Discover');
  const profile = await app.inject({ url: '/api/view-user-posts?username=alice', headers: bearer(bob.token) });
  t.same((profile.json() as { posts: { photos: PhotoJson[] }[] }).posts[0]!.photos, post.photos, 'a profile');
  const own = await app.inject({ url: '/api/user-posts', headers: bearer(alice.token) });
  t.same((own.json() as { posts: { photos: PhotoJson[] }[] }).posts[0]!.photos, post.photos, 'one\'s own profile');

  // A single photo's post is the spec's, as it was: no photos list.
  const single = await createPost(app, bob.token, { s3Key: await upload(app, bob.token, await makeJpeg(400, 300)), caption: 'one' });
  t.equal(single.statusCode, 201);
  t.notOk('photos' in single.json(), 'a post of one photo has no photos list');
  const mixed = (await app.inject({ url: '/api/discover-posts', headers: bearer(bob.token) })).json() as { photos?: PhotoJson[] }[];
  t.same(mixed.map((p) => p.photos?.length), [undefined, 3], 'a page of both');
  // The same post, sent as an album of one, is a post of one photo.
  const albumOfOne = await createPost(app, bob.token, { caption: 'one', photos: [{ s3Key: await upload(app, bob.token, await makeJpeg(400, 300)), altText: 'A can' }] });
  t.equal(albumOfOne.statusCode, 201);
  t.match(albumOfOne.json(), { altText: 'A can', width: 400, height: 300 });
  t.notOk('photos' in albumOfOne.json());

  // Deleting the album deletes every photo's images.
  t.equal(mediaDirs(test).length, 5);
  const del = await app.inject({ method: 'DELETE', url: `/api/post?postId=${post.postid}`, headers: bearer(alice.token) });
  t.equal(del.statusCode, 200);
  t.equal(mediaDirs(test).length, 2, 'only bob\'s photos are left');
  t.equal(countRows(app, 'posts'), 2);
  t.equal(app.database.sqlite.prepare('SELECT count(*) FROM post_photos').pluck().get(), 0, 'its photo rows went with it');
});

t.test('bad albums get a clear 4xx and change nothing', async (t) => {
  const test = await buildTestApp(t);
  const { app, createUser } = test;
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const photo = await makeJpeg(320, 240);
  const keys: string[] = [];
  for (let i = 0; i < 11; i++) keys.push(await upload(app, alice.token, photo));
  const bobs = await upload(app, bob.token, photo);
  const cases: [string, Record<string, unknown>, number, RegExp][] = [
    ['11 photos', { photos: keys.map((s3Key) => ({ s3Key })) }, 400, /at most 10 photos \(this one has 11\)/],
    ['no photo', { photos: [] }, 400, /at least one photo/],
    ['a key used twice', { photos: [{ s3Key: keys[0] }, { s3Key: keys[1] }, { s3Key: keys[0] }] }, 400, /Photo 3 is the same upload as an earlier one/],
    ['someone else\'s upload', { photos: [{ s3Key: keys[0] }, { s3Key: bobs }] }, 403, /^Photo 2 of 2: This upload belongs to someone else\.$/],
    ['an unknown key', { photos: [{ s3Key: keys[0] }, { s3Key: 'uploads/1/nope' }] }, 404, /^Photo 2 of 2: No such upload/],
    ['s3Key and photos', { s3Key: keys[0], photos: [{ s3Key: keys[1] }] }, 400, /either s3Key \(one photo\) or photos/],
    ['neither', {}, 400, /A photo is required/],
    ['an album as profile picture', { isProfilePicture: true, photos: [{ s3Key: keys[0] }] }, 400, /profile picture is one photo/],
    ['a description too long', { photos: [{ s3Key: keys[0] }, { s3Key: keys[1], altText: 'x'.repeat(1501) }] }, 400, /^Photo 2 of 2: .*at most 1500/],
    ['no caption', { caption: undefined, photos: [{ s3Key: keys[0] }] }, 400, /caption is required/],
  ];
  for (const [label, body, status, message] of cases) {
    const res = await createPost(app, alice.token, { caption: 'x', ...body });
    t.equal(res.statusCode, status, label);
    t.match(res.json(), { error: String, message }, label);
  }
  t.equal(countRows(app, 'posts'), 0, 'no post');
  t.same(mediaDirs(test), [], 'no image stored');
  for (const key of keys) t.equal(uploadStatus(test, key), 'uploaded', 'every upload still usable');
  t.equal(uploadStatus(test, bobs), 'uploaded', 'bob\'s upload untouched');

  // The same uploads then make a good album of 10.
  const ten = await createPost(app, alice.token, { caption: 'ten', photos: keys.slice(0, 10).map((s3Key) => ({ s3Key })) });
  t.equal(ten.statusCode, 201);
  t.equal((ten.json() as { photos: unknown[] }).photos.length, 10);
  const reused = await createPost(app, alice.token, { caption: 'again', photos: [{ s3Key: keys[10] }, { s3Key: keys[0] }] });
  t.equal(reused.statusCode, 409, 'an upload already in a post');
  t.match(reused.json().message, /^Photo 2 of 2: This upload was already used/);
  t.equal(uploadStatus(test, keys[10]!), 'uploaded', 'the other upload of the refused album is still usable');
});

t.test('an album whose third photo is not an image creates no post and leaves no image behind', async (t) => {
  const test = await buildTestApp(t);
  const { app, createUser } = test;
  const alice = await createUser('alice');
  const good = [await upload(app, alice.token, await makeJpeg(1200, 900)), await upload(app, alice.token, await makeJpeg(800, 800))];
  const bad = await upload(app, alice.token, (await makeJpeg(800, 600)).subarray(0, 20_000));
  const before = (await app.inject({ url: '/api/storage', headers: bearer(alice.token) })).json() as { usedBytes: number };

  const res = await createPost(app, alice.token, {
    caption: 'broken',
    photos: [{ s3Key: good[0] }, { s3Key: good[1] }, { s3Key: bad }, { s3Key: await upload(app, alice.token, await makeJpeg(300, 300)) }],
  });
  t.equal(res.statusCode, 422);
  t.match(res.json(), { error: 'unprocessable_image', message: /^Photo 3 of 4: The file is not an image we can read/ });
  t.equal(countRows(app, 'posts'), 0, 'no post');
  t.equal(app.database.sqlite.prepare('SELECT count(*) FROM post_photos').pluck().get(), 0);
  t.same(mediaDirs(test), [], 'the first two photos\' images were removed');
  t.notOk(rawExists(test, bad), 'the broken upload is removed');
  t.equal(uploadStatus(test, bad), undefined);
  for (const key of good) t.equal(uploadStatus(test, key), 'uploaded', 'the good uploads can be posted again');
  t.match(counters(app, alice.id), { postCount: 0, publicPostCount: 0 });

  const retry = await createPost(app, alice.token, { caption: 'fixed', photos: good.map((s3Key) => ({ s3Key })) });
  t.equal(retry.statusCode, 201, 'without the broken one, the album is made');
  const after = (await app.inject({ url: '/api/storage', headers: bearer(alice.token) })).json() as { usedBytes: number };
  t.ok(after.usedBytes > 0 && before.usedBytes > 0);
});

t.test('an album counts against the storage quota like its photos', async (t) => {
  const photo = await makeJpeg(640, 480);
  const processed = await processImage(Readable.from([photo]), { maxPixels: 1e8, maxBytes: 1e8 });
  const size = processed.display.length + processed.thumb.length;
  // Room for two photos and a half.
  const test = await buildTestApp(t, { USER_STORAGE_QUOTA_BYTES: String(Math.floor(size * 2.5)) });
  const { app, createUser } = test;
  const alice = await createUser('alice');
  const three = [await upload(app, alice.token, photo), await upload(app, alice.token, photo), await upload(app, alice.token, photo)];
  const res = await createPost(app, alice.token, { caption: 'too much', photos: three.map((s3Key) => ({ s3Key })) });
  t.equal(res.statusCode, 413);
  t.match(res.json(), { error: 'storage_quota_exceeded', message: /^Not enough storage left: this album needs at least [\d.]+ KB/ });
  t.equal(countRows(app, 'posts'), 0);
  t.same(mediaDirs(test), [], 'nothing stored');
  for (const key of three) t.notOk(rawExists(test, key), 'its uploads do not stay to take the room');

  const two = await createPost(app, alice.token, {
    caption: 'fits',
    photos: [{ s3Key: await upload(app, alice.token, photo) }, { s3Key: await upload(app, alice.token, photo) }],
  });
  t.equal(two.statusCode, 201, two.body);
  const storage = (await app.inject({ url: '/api/storage', headers: bearer(alice.token) })).json() as { usedBytes: number };
  t.equal(storage.usedBytes, size * 2, 'both photos counted');
  const stored = app.database.sqlite.prepare('SELECT stored_bytes FROM posts WHERE id = ?').pluck().get(two.json().postid);
  t.equal(stored, size * 2);
});

t.test('removing an account removes every photo of its albums', async (t) => {
  const test = await buildTestApp(t);
  const { app, createUser } = test;
  const alice = await createUser('alice');
  const keys = [await upload(app, alice.token, await makeJpeg(1200, 900)), await upload(app, alice.token, await makeJpeg(400, 400))];
  t.equal((await createPost(app, alice.token, { caption: 'two', photos: keys.map((s3Key) => ({ s3Key })) })).statusCode, 201);
  t.equal(mediaDirs(test).length, 2);
  const removed = await app.inject({ method: 'DELETE', url: '/api/account', headers: bearer(alice.token), payload: { confirmUsername: 'alice' } });
  t.equal(removed.statusCode, 200, removed.body);
  const left = mediaDirs(test).flatMap((dir) => readdirSync(join(test.config.storage.localDir, 'media', dir)));
  t.same(left, [], 'no image file is left');
});
