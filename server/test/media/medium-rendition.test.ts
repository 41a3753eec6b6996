import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import t from 'tap';
import { MEDIUM_MIN_SOURCE_WIDTH, MEDIUM_WIDTH, processImage } from '../../src/media/images/pipeline.js';
import { bearer, buildTestApp, type TestApp } from '../helpers.js';
import { createPost, makeJpeg, upload } from './upload-helpers.js';

interface PostJson {
  postid: number;
  s3Url: string;
  thumbnailUrl: string;
  mediumUrl: string | null;
  mediumWidth: number;
  width: number;
  height: number;
}

const onDisk = (test: TestApp, url: string) => join(test.config.storage.localDir, ...url.split('/').filter(Boolean));
const post = async (test: TestApp, token: string, width: number, height: number, caption = 'cheers') =>
  (await createPost(test.app, token, { s3Key: await upload(test.app, token, await makeJpeg(width, height)), caption })).json() as PostJson;
const row = (test: TestApp, id: number) =>
  test.app.database.sqlite.prepare('SELECT medium_width AS mediumWidth, stored_bytes AS storedBytes FROM posts WHERE id = ?').get(id) as {
    mediumWidth: number;
    storedBytes: number;
  };

t.test('the pipeline makes a medium rendition of wide enough photos only', async (t) => {
  const opts = { maxPixels: 50_000_000, maxBytes: 20_000_000 };
  const run = async (width: number, height: number) => processImage(Readable.from([await makeJpeg(width, height)]), opts);

  const landscape = await run(2400, 1600);
  t.equal(landscape.medium?.width, MEDIUM_WIDTH);
  const meta = await sharp(landscape.medium!.data).metadata();
  t.same([meta.format, meta.width, meta.height], ['webp', MEDIUM_WIDTH, 512], 'the display image (1440×960) at 768 wide');
  t.ok(landscape.medium!.data.length < landscape.display.length, 'smaller than the display image');

  const portrait = await run(1200, 1600);
  t.same([portrait.width, portrait.height], [1080, 1440]);
  const pMeta = await sharp(portrait.medium!.data).metadata();
  t.same([pMeta.width, pMeta.height], [MEDIUM_WIDTH, 1024], 'limited by width only: the frame is filled across');

  t.equal((await run(MEDIUM_MIN_SOURCE_WIDTH - 1, 600)).medium, null, 'not much wider than the medium: none');
  t.equal((await run(600, 1200)).medium, null, 'a narrow portrait: none');
});

t.test('a post stores, counts, shows and deletes its medium rendition', async (t) => {
  const test = await buildTestApp(t);
  const { app, createUser } = test;
  const alice = await createUser('alice');

  const big = await post(test, alice.token, 2400, 1600);
  t.match(big, { width: 1440, height: 960, mediumWidth: MEDIUM_WIDTH, mediumUrl: /^\/media\/[A-Za-z0-9_-]{22}\/medium\.webp$/ });
  t.equal(big.mediumUrl!.replace('medium', 'display'), big.s3Url, 'next to the display image');
  t.equal(row(test, big.postid).mediumWidth, MEDIUM_WIDTH, 'posts.medium_width');

  const served = await app.inject({ method: 'GET', url: big.mediumUrl! });
  t.equal(served.statusCode, 200);
  t.equal(served.headers['content-type'], 'image/webp');
  t.equal(served.headers['cache-control'], 'public, max-age=31536000, immutable');
  const meta = await sharp(served.rawPayload).metadata();
  t.same([meta.width, meta.height], [768, 512]);

  const files = [big.s3Url, big.thumbnailUrl, big.mediumUrl!].map((u) => statSync(onDisk(test, u)).size);
  t.equal(row(test, big.postid).storedBytes, files[0]! + files[1]! + files[2]!, 'stored_bytes (the quota) counts all three images');

  const small = await post(test, alice.token, 800, 600);
  t.match(small, { width: 800, height: 600, mediumWidth: 0, mediumUrl: null });
  t.equal(row(test, small.postid).mediumWidth, 0);
  t.notOk(existsSync(onDisk(test, small.s3Url.replace('display', 'medium'))), 'no medium file for a small photo');

  // Feeds and profiles carry the same fields (both written by posts/page-json.ts).
  const discover = (await app.inject({ method: 'GET', url: '/api/discover-posts', headers: bearer(alice.token) })).json() as PostJson[];
  t.match(
    discover.map((p) => [p.postid, p.mediumUrl, p.mediumWidth]),
    [
      [small.postid, null, 0],
      [big.postid, big.mediumUrl, MEDIUM_WIDTH],
    ],
  );
  const own = (await app.inject({ method: 'GET', url: '/api/user-posts', headers: bearer(alice.token) })).json() as { posts: PostJson[] };
  t.match(own.posts.find((p) => p.postid === big.postid), { mediumUrl: big.mediumUrl, mediumWidth: MEDIUM_WIDTH });

  const del = await app.inject({ method: 'DELETE', url: `/api/post?postId=${big.postid}`, headers: bearer(alice.token) });
  t.equal(del.statusCode, 200);
  t.equal((await app.inject({ method: 'GET', url: big.mediumUrl! })).statusCode, 404, 'no longer served');
  t.notOk(existsSync(onDisk(test, big.mediumUrl!)), 'removed from disk with the post');
});

t.test('removing an account removes its medium renditions too', async (t) => {
  const test = await buildTestApp(t);
  const alice = await test.createUser('alice');
  const big = await post(test, alice.token, 2000, 1200);
  const small = await post(test, alice.token, 640, 480);
  t.ok(existsSync(onDisk(test, big.mediumUrl!)));
  const res = await test.app.inject({ method: 'DELETE', url: '/api/account', headers: bearer(alice.token), payload: { confirmUsername: 'alice' } });
  t.equal(res.statusCode, 200, res.body);
  for (const url of [big.s3Url, big.thumbnailUrl, big.mediumUrl!, small.s3Url, small.thumbnailUrl]) {
    t.notOk(existsSync(onDisk(test, url)), `${url} removed`);
  }
});
