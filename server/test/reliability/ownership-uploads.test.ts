import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import t from 'tap';
import { insertPost } from '../api/factories.js';
import { bearer, buildTestApp } from '../helpers.js';
import { createPost, makeJpeg, presign, upload } from '../media/upload-helpers.js';
import { listFiles, snapshot } from './reliability-helpers.js';

const rawFiles = (root: string) => listFiles(root).filter((f) => f.startsWith('uploads/') || f.startsWith('.tmp/'));

/** A valid PNG header claiming width × height pixels, with a tiny (incomplete) body. */
function pngClaiming(width: number, height: number) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(width > 10000 ? 100_000 : width * 3 + 1))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

t.test('ownership: an upload becomes a post only for its uploader and only once; only authors delete', async (t) => {
  const { app, createUser, config } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const key = await upload(app, alice.token, await makeJpeg(80, 60));

  const stolen = await createPost(app, bob.token, { s3Key: key, caption: 'mine now' });
  t.equal(stolen.statusCode, 403);
  t.equal(stolen.json().error, 'forbidden');

  // Ten attempts at once with the same key: exactly one post.
  const attempts = await Promise.all(
    Array.from({ length: 10 }, (_, i) => createPost(app, alice.token, { s3Key: key, caption: `try ${i}` })),
  );
  const codes = attempts.map((r) => r.statusCode).sort();
  t.equal(codes.filter((c) => c === 201).length, 1, `one post from one upload (${codes.join(',')})`);
  t.ok(codes.every((c) => c === 201 || c === 409), 'the others are told it was already used');
  const post = attempts.find((r) => r.statusCode === 201)!.json() as { postid: number };
  const count = app.database.sqlite.prepare('SELECT count(*) AS n FROM posts WHERE user_id = ?').get(alice.id) as { n: number };
  t.equal(count.n, 1);
  t.same(rawFiles(config.storage.localDir), [], 'the raw upload is gone once the post exists');

  const again = await createPost(app, alice.token, { s3Key: key, caption: 'again' });
  t.equal(again.statusCode, 409);

  // Comments and deletions.
  const comment = await app.inject({ method: 'POST', url: '/api/comment', headers: bearer(bob.token), payload: { postId: post.postid, comment: 'hi' } });
  const commentId = (comment.json() as { comment_id: number }).comment_id;
  const before = snapshot(app);
  const refusals = [
    await app.inject({ method: 'DELETE', url: `/api/post?postId=${post.postid}`, headers: bearer(bob.token) }),
    await app.inject({ method: 'DELETE', url: `/api/comment?commentId=${commentId}`, headers: bearer(alice.token) }),
  ];
  t.same(refusals.map((r) => r.statusCode), [403, 403], "neither can delete the other's object");
  t.same(snapshot(app), before, 'and nothing changed');

  const del = await app.inject({ method: 'DELETE', url: `/api/comment?commentId=${commentId}`, headers: bearer(bob.token) });
  t.equal(del.statusCode, 200);
  const delAgain = await app.inject({ method: 'DELETE', url: `/api/comment?commentId=${commentId}`, headers: bearer(bob.token) });
  t.equal(delAgain.statusCode, 404, 'deleting twice: the second is told it is gone');
  const delPost = await app.inject({ method: 'DELETE', url: `/api/post?postId=${post.postid}`, headers: bearer(alice.token) });
  t.equal(delPost.statusCode, 200);
  t.same(listFiles(config.storage.localDir).filter((f) => f.startsWith('media/')), [], 'its images are removed with it');
  const gone = await app.inject({ method: 'GET', url: `/api/like?postId=${post.postid}`, headers: bearer(alice.token) });
  t.equal(gone.statusCode, 404);
});

t.test('likes and follows at the same instant are counted once', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const post = insertPost(app.database.sqlite, { userId: bob.id, caption: 'x' });
  const likes = await Promise.all(
    Array.from({ length: 8 }, () => app.inject({ method: 'POST', url: '/api/like', headers: bearer(alice.token), payload: { postId: post.id } })),
  );
  t.same(likes.map((r) => r.statusCode).sort(), [201, 409, 409, 409, 409, 409, 409, 409]);
  const state = await app.inject({ method: 'GET', url: `/api/like?postId=${post.id}`, headers: bearer(alice.token) });
  t.same(state.json(), { likeCount: 1, likedByUser: true });
  const follows = await Promise.all(
    Array.from({ length: 5 }, () => app.inject({ method: 'POST', url: '/api/account/bob/follow', headers: bearer(alice.token) })),
  );
  t.same(follows.map((r) => r.statusCode).sort(), [200, 409, 409, 409, 409]);
  const row = app.database.sqlite.prepare('SELECT follower_count AS n, likes_received AS l FROM users WHERE id = ?').get(bob.id) as { n: number; l: number };
  t.same(row, { n: 1, l: 1 });
  const self = await app.inject({ method: 'POST', url: '/api/account/alice/follow', headers: bearer(alice.token) });
  t.equal(self.statusCode, 400);
  t.match(self.json().message, /yourself/i);
});

t.test('uploads that are not acceptable images are refused and leave no file behind', async (t) => {
  const { app, createUser, config } = await buildTestApp(t, { IMAGE_MAX_PIXELS: '40000000' });
  const alice = await createUser('alice');
  const jpeg = await makeJpeg(120, 90);
  const files: Record<string, { body: Buffer; type: string; status: number }> = {
    'text named .jpg': { body: Buffer.from('hello, I am not a picture\n'.repeat(50)), type: 'image/jpeg', status: 422 },
    'HTML as image/png': { body: Buffer.from('<html><script>alert(1)</script></html>'), type: 'image/png', status: 422 },
    'SVG with script': {
      body: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>'),
      type: 'image/svg+xml',
      status: 422,
    },
    'PDF': { body: Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF'), type: 'image/jpeg', status: 422 },
    'empty file': { body: Buffer.alloc(0), type: 'image/jpeg', status: 422 },
    'truncated JPEG': { body: jpeg.subarray(0, Math.floor(jpeg.length / 2)), type: 'image/jpeg', status: 422 },
    'JPEG header only': { body: jpeg.subarray(0, 200), type: 'image/jpeg', status: 422 },
    'decompression bomb (PNG claiming 100 000 × 100 000)': { body: pngClaiming(100_000, 100_000), type: 'image/png', status: 422 },
    'PNG claiming 50 000 × 1 000 (over the pixel limit)': { body: pngClaiming(50_000, 1_000), type: 'image/png', status: 422 },
  };
  for (const [name, file] of Object.entries(files)) {
    const before = snapshot(app);
    const key = await upload(app, alice.token, file.body, file.type);
    const res = await createPost(app, alice.token, { s3Key: key, caption: name });
    t.equal(res.statusCode, file.status, name);
    t.match(res.json(), { error: 'unprocessable_image', message: /image/ }, `${name}: says why`);
    const after = snapshot(app);
    t.equal(after.posts, before.posts, `${name}: no post`);
    t.same(rawFiles(config.storage.localDir), [], `${name}: no raw file left`);
    t.same(after.files, before.files, `${name}: no processed file left`);
    const retry = await createPost(app, alice.token, { s3Key: key, caption: name });
    t.equal(retry.statusCode, 404, `${name}: the refused upload cannot be retried`);
  }

  // A real PNG whose name and type say JPEG is fine: the content decides.
  const png = await sharp({ create: { width: 50, height: 40, channels: 3, background: '#ffcc00' } }).png().toBuffer();
  const key = await upload(app, alice.token, png, 'image/jpeg');
  const ok = await createPost(app, alice.token, { s3Key: key, caption: 'png in disguise' });
  t.equal(ok.statusCode, 201);
});

t.test('upload PUTs: too large, expired, tampered or repeated are refused with no file left', async (t) => {
  const { app, createUser, config } = await buildTestApp(t, { UPLOAD_MAX_BYTES: '4096', UPLOAD_URL_TTL_SECONDS: '2' });
  const alice = await createUser('alice');
  const sign = async () => {
    const res = await presign(app, alice.token, { fileName: 'a.jpg', fileType: 'image/jpeg' });
    t.equal(res.statusCode, 200);
    return new URL((res.json() as { uploadUrl: string }).uploadUrl);
  };
  const put = (url: URL | string, body: Buffer | string, headers: Record<string, string> = { 'content-type': 'image/jpeg' }) =>
    app.inject({ method: 'PUT', url: typeof url === 'string' ? url : url.pathname + url.search, headers, payload: body });

  const big = await sign();
  const tooBig = await put(big, Buffer.alloc(5000, 1));
  t.equal(tooBig.statusCode, 413);
  t.match(tooBig.json(), { error: 'payload_too_large', message: /larger than/ });
  t.same(rawFiles(config.storage.localDir), [], 'nothing stored for a refused upload');

  // Claimed length over the limit is refused before reading.
  const claimed = await sign();
  const lying = await app.inject({
    method: 'PUT',
    url: claimed.pathname + claimed.search,
    headers: { 'content-type': 'image/jpeg', 'content-length': String(200 * 1024 * 1024) },
    payload: Buffer.alloc(10),
  });
  t.equal(lying.statusCode, 413);

  const url = await sign();
  const tampered: Record<string, string> = {};
  const withParam = (name: string, value: string) => {
    const copy = new URL(url);
    copy.searchParams.set(name, value);
    return copy.pathname + copy.search;
  };
  tampered['signature changed'] = withParam('sig', 'A'.repeat(43));
  tampered['expiry pushed'] = withParam('exp', String(Number(url.searchParams.get('exp')) + 3600));
  tampered['type changed'] = withParam('ct', 'image/png');
  tampered['other user'] = url.pathname.replace(`/uploads/${alice.id}/`, '/uploads/999/') + url.search;
  tampered['other upload id'] = url.pathname.replace(/[0-9a-f-]{36}$/, '00000000-0000-4000-8000-000000000000') + url.search;
  tampered['no signature'] = url.pathname;
  tampered['traversal'] = `/uploads/${alice.id}/..%2F..%2Fkeys%2Fsigning-key.json${url.search}`;
  for (const [name, path] of Object.entries(tampered)) {
    const res = await put(path, Buffer.from('x'), { 'content-type': name === 'type changed' ? 'image/png' : 'image/jpeg' });
    t.ok(res.statusCode === 403 || res.statusCode === 400, `${name}: refused (${res.statusCode})`);
    t.type(res.json().message, 'string');
  }
  const wrongType = await put(url, Buffer.from('x'), { 'content-type': 'text/html' });
  t.equal(wrongType.statusCode, 415, 'a Content-Type other than the signed one');
  const first = await put(url, Buffer.from('fine'));
  t.equal(first.statusCode, 200);
  const second = await put(url, Buffer.from('again'));
  t.equal(second.statusCode, 409, 'one PUT per link');

  const late = await sign();
  await new Promise((r) => setTimeout(r, 3100));
  const expired = await put(late, Buffer.from('x'));
  t.equal(expired.statusCode, 403);
  t.match(expired.json().message, /expired/);
  t.same(rawFiles(config.storage.localDir), [url.pathname.slice(1)], 'only the one accepted upload is stored');
});

t.test('uploads never turned into posts are removed after a day, posts keep their images', async (t) => {
  const { app, createUser, config } = await buildTestApp(t);
  const alice = await createUser('alice');
  const used = await upload(app, alice.token, await makeJpeg(40, 30));
  const post = await createPost(app, alice.token, { s3Key: used, caption: 'kept' });
  t.equal(post.statusCode, 201);
  await upload(app, alice.token, await makeJpeg(40, 30));
  await presign(app, alice.token, { fileName: 'never.jpg', fileType: 'image/jpeg' });
  t.equal(rawFiles(config.storage.localDir).length, 1);

  const early = await app.sweepOrphanUploads(Date.now() + 23 * 3600_000);
  t.same(early, { rows: 0, files: 0 }, 'nothing is removed before a day');
  const late = await app.sweepOrphanUploads(Date.now() + 25 * 3600_000);
  t.ok(late.files >= 1 && late.rows >= 2, `after a day the orphans go (${JSON.stringify(late)})`);
  t.same(rawFiles(config.storage.localDir), []);
  const left = app.database.sqlite.prepare('SELECT count(*) AS n FROM uploads').get() as { n: number };
  t.equal(left.n, 0);
  const image = await app.inject({ method: 'GET', url: (post.json() as { s3Url: string }).s3Url });
  t.equal(image.statusCode, 200, "the post's image is untouched");
});
