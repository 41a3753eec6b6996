import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { LocalStorage } from '../../src/kernel/storage/local.js';
import { bearer, buildTestApp } from '../helpers.js';
import { injectUrl, presign } from './upload-helpers.js';

const JPEG_TYPE = 'image/jpeg';

t.test('presign-upload validates its body and needs a token', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');

  const anon = await app.inject({ method: 'POST', url: '/api/presign-upload', payload: { fileName: 'a.jpg', fileType: JPEG_TYPE } });
  t.equal(anon.statusCode, 401);

  const notImage = await presign(app, alice.token, { fileName: 'a.pdf', fileType: 'application/pdf' });
  t.equal(notImage.statusCode, 415);
  t.match(notImage.json(), { error: 'unsupported_media_type', message: /image type/ });

  for (const fileType of ['image/', 'image', 'text/html; image/png', 'image/png\n', 'image/pn g']) {
    const res = await presign(app, alice.token, { fileName: 'a.png', fileType });
    t.equal(res.statusCode, 415, `fileType ${JSON.stringify(fileType)}`);
  }
  t.equal((await presign(app, alice.token, { fileName: '', fileType: JPEG_TYPE })).statusCode, 400, 'empty name');
  t.equal((await presign(app, alice.token, { fileName: 'x'.repeat(256), fileType: JPEG_TYPE })).statusCode, 400, 'long name');
  t.equal((await presign(app, alice.token, { fileType: JPEG_TYPE })).statusCode, 400, 'no name');
  t.equal((await presign(app, alice.token, { fileName: 'a.jpg', fileType: JPEG_TYPE, extra: 1 })).statusCode, 400, 'unknown field');
  const bad = await presign(app, alice.token, { fileName: 'a.jpg', fileType: JPEG_TYPE, isProfilePicture: 'yes' });
  t.equal(bad.statusCode, 400);
  t.match(bad.json(), { error: 'invalid_request', message: /isProfilePicture/ });
  t.equal((app.database.sqlite.prepare('SELECT count(*) AS n FROM uploads').get() as { n: number }).n, 0, 'nothing recorded');
});

t.test('presign-upload returns a signed URL on this server and records a pending upload', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const before = Date.now();
  const res = await presign(app, alice.token, { fileName: '../../etc/passwd.jpg', fileType: 'image/JPEG', isProfilePicture: true });
  t.equal(res.statusCode, 200);
  const { uploadUrl, s3Key } = res.json();
  t.match(s3Key, new RegExp(`^uploads/${alice.id}/[0-9a-f-]{36}$`));
  t.notMatch(s3Key, /passwd|\.\./, 'the file name is not used');
  const url = new URL(uploadUrl);
  t.equal(`${url.origin}${url.pathname}`, `http://localhost:3000/${s3Key}`);
  t.equal(url.searchParams.get('ct'), 'image/jpeg');
  const row = app.database.sqlite.prepare('SELECT * FROM uploads WHERE key = ?').get(s3Key) as Record<string, unknown>;
  t.match(row, { user_id: alice.id, status: 'pending', content_type: 'image/jpeg', is_profile_picture: 1 });
  const ttl = (row.expires_at as number) - (row.created_at as number);
  t.equal(ttl, 900_000, 'valid 15 minutes');
  t.ok((row.created_at as number) >= before);
});

t.test('the signed upload URL accepts exactly one PUT of the signed type, before it expires', async (t) => {
  const { app, createUser, config } = await buildTestApp(t, { UPLOAD_MAX_BYTES: '50000' });
  const alice = await createUser('alice');
  const fresh = async (fileType = JPEG_TYPE) => {
    const res = await presign(app, alice.token, { fileName: 'a.jpg', fileType });
    return res.json() as { uploadUrl: string; s3Key: string };
  };
  const put = (url: string, body: Buffer | string, type = JPEG_TYPE, headers: Record<string, string> = {}) =>
    app.inject({ method: 'PUT', url, headers: { 'content-type': type, ...headers }, payload: body });
  const storageFile = (key: string) => join(config.storage.localDir, ...key.split('/'));
  const status = (key: string) =>
    (app.database.sqlite.prepare('SELECT status, size FROM uploads WHERE key = ?').get(key) as { status: string; size: number | null });

  await t.test('tampered signature → 403', async (t) => {
    const { uploadUrl, s3Key } = await fresh();
    const u = new URL(uploadUrl);
    const sig = u.searchParams.get('sig')!;
    u.searchParams.set('sig', (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1));
    const res = await put(injectUrl(u.href), 'data');
    t.equal(res.statusCode, 403);
    t.match(res.json(), { error: 'forbidden', message: /not valid/ });
    u.searchParams.delete('sig');
    t.equal((await put(injectUrl(u.href), 'data')).statusCode, 400, 'missing signature');
    t.notOk(existsSync(storageFile(s3Key)));
    t.equal(status(s3Key).status, 'pending');
  });

  await t.test("another key's path with this signature → 403", async (t) => {
    const a = await fresh();
    const b = await fresh();
    const url = new URL(a.uploadUrl);
    const other = new URL(b.uploadUrl);
    const res = await put(other.pathname + url.search, 'data');
    t.equal(res.statusCode, 403);
    t.notOk(existsSync(storageFile(b.s3Key)));
  });

  await t.test('another content type → 403 when changed in the URL, 415 when only sent', async (t) => {
    const { uploadUrl, s3Key } = await fresh();
    const u = new URL(uploadUrl);
    u.searchParams.set('ct', 'image/png');
    t.equal((await put(injectUrl(u.href), 'data', 'image/png')).statusCode, 403);
    const res = await put(injectUrl(uploadUrl), 'data', 'image/png');
    t.equal(res.statusCode, 415);
    t.match(res.json().message, /image\/jpeg/);
    t.equal((await put(injectUrl(uploadUrl), 'data', 'text/html')).statusCode, 415);
    t.notOk(existsSync(storageFile(s3Key)));
  });

  await t.test('expired → 403', async (t) => {
    const { uploadUrl, s3Key } = await fresh();
    const exp = Number(new URL(uploadUrl).searchParams.get('exp'));
    t.ok(exp * 1000 > Date.now() + 800_000, 'expires in the future');
    t.equal(app.storage.driver, 'local');
    // A real URL signed in the past by the same secret: only the clock differs.
    const storage = app.storage as LocalStorage;
    const pastUrl = await storage.presignPut(s3Key, JPEG_TYPE, -10);
    const res = await put(injectUrl(pastUrl), 'data');
    t.equal(res.statusCode, 403);
    t.match(res.json().message, /expired/);
    t.notOk(existsSync(storageFile(s3Key)));
  });

  await t.test('no bearer token needed; a second PUT → 409', async (t) => {
    const { uploadUrl, s3Key } = await fresh();
    const body = Buffer.alloc(20_000, 7);
    const first = await put(injectUrl(uploadUrl), body);
    t.equal(first.statusCode, 200);
    t.same(first.json(), { ok: true });
    t.same(status(s3Key), { status: 'uploaded', size: 20_000 });
    t.ok(existsSync(storageFile(s3Key)));
    const second = await put(injectUrl(uploadUrl), Buffer.alloc(10, 1));
    t.equal(second.statusCode, 409);
    t.same(status(s3Key), { status: 'uploaded', size: 20_000 }, 'first upload kept');
  });

  await t.test('too large → 413 and no file left, whether declared up front or streamed', async (t) => {
    const big = Buffer.alloc(50_001, 1);
    const a = await fresh();
    const declared = await put(injectUrl(a.uploadUrl), big);
    t.equal(declared.statusCode, 413);
    t.match(declared.json(), { error: 'payload_too_large' });
    t.notOk(existsSync(storageFile(a.s3Key)));
    t.equal(status(a.s3Key).status, 'pending');

    // Chunked, no Content-Length: the cap applies while streaming.
    const b = await fresh();
    const { Readable } = await import('node:stream');
    const chunks = Array.from({ length: 20 }, () => Buffer.alloc(4096, 2));
    const streamed = await app.inject({
      method: 'PUT',
      url: injectUrl(b.uploadUrl),
      headers: { 'content-type': JPEG_TYPE, 'transfer-encoding': 'chunked' },
      payload: Readable.from(chunks),
    });
    t.equal(streamed.statusCode, 413);
    t.notOk(existsSync(storageFile(b.s3Key)), 'partial file removed');
    t.same(readdirSync(join(config.storage.localDir, '.tmp')).filter((f) => !f.startsWith('ping-')), [], 'no temp file left');
    t.equal(status(b.s3Key).status, 'pending');
  });

  await t.test('an upload key that was never presigned → 403', async (t) => {
    const res = await put(`/uploads/${alice.id}/00000000-0000-4000-8000-000000000000?ct=image%2Fjpeg&exp=99999999999&sig=${'A'.repeat(43)}`, 'x');
    t.equal(res.statusCode, 403);
  });

  await t.test('raw uploads are never served', async (t) => {
    const { uploadUrl, s3Key } = await fresh();
    t.equal((await put(injectUrl(uploadUrl), 'secret bytes')).statusCode, 200);
    for (const url of [`/${s3Key}`, injectUrl(uploadUrl), `/media/../${s3Key}`, `/media/${s3Key}`, `/media/%2e%2e/${s3Key}`]) {
      const res = await app.inject({ method: 'GET', url, headers: bearer(alice.token) });
      t.not(res.statusCode, 200, url);
      t.notMatch(res.body, /secret bytes/, url);
    }
  });
});

t.test('over the network, a client streaming too much gets the 413 answer (not a reset)', async (t) => {
  const { app, createUser, config } = await buildTestApp(t, { UPLOAD_MAX_BYTES: '100000' });
  const alice = await createUser('alice');
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const target = async () => {
    const { uploadUrl } = (await presign(app, alice.token, { fileName: 'a.jpg', fileType: JPEG_TYPE })).json();
    return address + injectUrl(uploadUrl);
  };

  // No Content-Length: 64 KB chunks until the server stops us.
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      sent += 65_536;
      if (sent > 5_000_000) controller.close();
      else controller.enqueue(new Uint8Array(65_536));
    },
  });
  const streamed = await fetch(await target(), {
    method: 'PUT',
    headers: { 'content-type': JPEG_TYPE },
    body,
    duplex: 'half',
  } as RequestInit);
  t.equal(streamed.status, 413);
  t.match(await streamed.json(), { error: 'payload_too_large' });
  t.ok(sent < 5_000_000, `the server stopped reading early (${sent} bytes offered)`);

  const ok = await fetch(await target(), { method: 'PUT', headers: { 'content-type': JPEG_TYPE }, body: new Uint8Array(90_000) });
  t.equal(ok.status, 200);
  t.same(await ok.json(), { ok: true });
  t.same(readdirSync(join(config.storage.localDir, '.tmp')).filter((f) => !f.startsWith('ping-')), [], 'no temp file left');
});
