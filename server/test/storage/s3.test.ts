import { createHash, createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'minio';
import t from 'tap';
import { loadConfig, type Config } from '../../src/kernel/config.js';
import { createStorage } from '../../src/kernel/storage/index.js';
import { clientOptionsFor, createS3Storage } from '../../src/kernel/storage/s3.js';
import { storageContract } from './contract.js';

// s3rver (CommonJS, no types) speaks the S3 protocol: buckets, objects, listings, errors. It does
// not verify SigV4 signatures (a presigned URL with a tampered signature is accepted; only the
// expiry is checked), so it is used here for the driver's requests and the shape of the URLs it
// signs, which sigV4Valid below checks against the AWS algorithm. Swift, which does verify
// signatures, refuses tampered URLs in swift.test.ts. Its built-in key pair is S3RVER/S3RVER.
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  httpServer?: Server;
}
const S3rver = createRequire(import.meta.url)('s3rver') as new (opts: Record<string, unknown>) => S3rverInstance;

const dir = mkdtempSync(join(tmpdir(), 'shower-beer-s3rver-'));
const s3rver = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir });
const { port } = await s3rver.run();
t.teardown(async () => {
  await s3rver.close();
  rmSync(dir, { recursive: true, force: true });
});

const internal = `http://127.0.0.1:${port}`;
/** The same server under another host name, standing in for the address browsers use. */
const publicEndpoint = `http://localhost:${port}`;

function s3Config(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    DATA_DIR: join(dir, 'app-data'),
    LOG_LEVEL: 'silent',
    STORAGE_DRIVER: 's3',
    S3_ENDPOINT: internal,
    S3_PUBLIC_ENDPOINT: publicEndpoint,
    S3_BUCKET: 'shower-beer-test',
    S3_ACCESS_KEY: 'S3RVER',
    S3_SECRET_KEY: 'S3RVER',
    ...overrides,
  });
}

const config = s3Config();
const raw = new Client(clientOptionsFor(internal, config.storage.s3));

t.test('storage contract (s3 driver on a real S3 protocol server)', async (t) => {
  storageContract(t, () => createS3Storage(config));
});

t.test('createStorage picks the s3 driver from STORAGE_DRIVER=s3', async (t) => {
  const storage = await createStorage(config);
  t.equal(storage.driver, 's3');
});

t.test('the bucket is created at start-up when missing, and kept when present', async (t) => {
  const bucket = `fresh-${Date.now()}`;
  t.equal(await raw.bucketExists(bucket), false);
  const storage = await createS3Storage(s3Config({ S3_BUCKET: bucket }));
  t.equal(await raw.bucketExists(bucket), true, 'created');
  await storage.write('media/keep.txt', Buffer.from('kept'), 'text/plain');
  const again = await createS3Storage(s3Config({ S3_BUCKET: bucket }));
  t.same(await again.stat('media/keep.txt'), { size: 4 }, 'a restart does not empty it');
});

t.test('the presigned PUT URL is SigV4, signed for the public endpoint, with the asked expiry', async (t) => {
  const storage = await createS3Storage(config);
  const url = new URL(await storage.presignPut('uploads/3/abc-def', 'image/jpeg', 900));
  t.equal(url.origin, publicEndpoint, 'the host browsers reach, not the internal one');
  t.equal(url.pathname, '/shower-beer-test/uploads/3/abc-def');
  const q = url.searchParams;
  t.equal(q.get('X-Amz-Algorithm'), 'AWS4-HMAC-SHA256');
  t.match(q.get('X-Amz-Credential'), /^S3RVER\/\d{8}\/us-east-1\/s3\/aws4_request$/);
  t.equal(q.get('X-Amz-Expires'), '900');
  t.equal(q.get('X-Amz-SignedHeaders'), 'host');
  t.match(q.get('X-Amz-Signature'), /^[0-9a-f]{64}$/);
  const signedAt = q.get('X-Amz-Date')!;
  const iso = `${signedAt.slice(0, 4)}-${signedAt.slice(4, 6)}-${signedAt.slice(6, 11)}:${signedAt.slice(11, 13)}:${signedAt.slice(13)}`;
  t.ok(Math.abs(Date.parse(iso) - Date.now()) < 60_000, `signed now (${signedAt})`);
});

t.test('signing an upload URL does not touch the network', async (t) => {
  const storage = await createS3Storage(
    // A public host that does not resolve: any lookup or request would fail.
    s3Config({ S3_PUBLIC_ENDPOINT: 'https://photos.invalid' }),
  );
  let connections = 0;
  const onConnection = () => connections++;
  s3rver.httpServer?.on('connection', onConnection);
  t.teardown(() => s3rver.httpServer?.off('connection', onConnection));
  const url = new URL(await storage.presignPut('uploads/1/x', 'image/png', 60));
  t.equal(url.origin, 'https://photos.invalid');
  t.equal(connections, 0, 'no request reached the S3 server either');
});

/**
 * Checks a SigV4 query-string signature the way an S3 server does, written from
 * the AWS specification (not minio's code), because s3rver does not check V4.
 */
function sigV4Valid(url: URL, method: string, secretKey: string): boolean {
  const q = url.searchParams;
  const [accessKey, date, region, service, terminator] = (q.get('X-Amz-Credential') ?? '').split('/');
  if (!accessKey || !date || !region || service !== 's3' || terminator !== 'aws4_request') return false;
  const enc = (v: string) => encodeURIComponent(v).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  const query = [...q.entries()]
    .filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => [enc(k), enc(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalRequest = [method, url.pathname, query, `host:${url.host}`, '', 'host', 'UNSIGNED-PAYLOAD'].join('\n');
  const scope = `${date}/${region}/s3/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', q.get('X-Amz-Date'), scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
  let key: Buffer = Buffer.from(`AWS4${secretKey}`);
  for (const part of [date, region, 's3', 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  return createHmac('sha256', key).update(stringToSign).digest('hex') === q.get('X-Amz-Signature');
}

t.test('the presigned signature is valid for the public host only, that key only, PUT only', async (t) => {
  const storage = await createS3Storage(config);
  const url = new URL(await storage.presignPut('uploads/3/abc-def', 'image/jpeg', 900));
  t.ok(sigV4Valid(url, 'PUT', 'S3RVER'), 'valid as signed');
  t.notOk(sigV4Valid(url, 'PUT', 'another-secret'), 'not with another secret');
  t.notOk(sigV4Valid(url, 'GET', 'S3RVER'), 'not for a GET (no public reads)');
  const otherKey = new URL(url);
  otherKey.pathname += '-other';
  t.notOk(sigV4Valid(otherKey, 'PUT', 'S3RVER'), 'not for another key');
  const internalHost = new URL(url);
  internalHost.host = `127.0.0.1:${port}`;
  t.notOk(sigV4Valid(internalHost, 'PUT', 'S3RVER'), 'not for the internal host');
  const longer = new URL(url);
  longer.searchParams.set('X-Amz-Expires', '604800');
  t.notOk(sigV4Valid(longer, 'PUT', 'S3RVER'), 'not with a longer expiry');
});

t.test('a browser-style PUT to the presigned URL stores the object; create-post can stat and delete it', async (t) => {
  const storage = await createS3Storage(config);
  const key = `uploads/5/${Date.now()}`;
  const signed = await storage.presignPut(key, 'image/jpeg', 60);
  const body = Buffer.alloc(123_456, 7);
  const put = await fetch(signed, { method: 'PUT', body, headers: { 'content-type': 'image/jpeg' } });
  t.equal(put.status, 200, await put.text());
  t.same(await storage.stat(key), { size: body.length }, 'the size check after upload sees the real size');
  await storage.delete(key);
  t.equal(await storage.stat(key), null, 'a refused upload is gone');
  await t.rejects(storage.read(key), { code: 'ENOENT' }, 'reading it now fails like the local driver');
});

t.test('keys that are not plain relative paths are refused', async (t) => {
  const storage = await createS3Storage(config);
  for (const key of ['../x', 'a/../../x', '/etc/passwd', 'a//b', 'a/./b', '', 'a\\b']) {
    await t.rejects(storage.write(key, Buffer.from('x'), 'text/plain'), key);
    await t.rejects(storage.stat(key), key);
    await t.rejects(storage.presignPut(key, 'image/jpeg', 60), key);
  }
});

t.test('endpoints with a path, or not http(s), are refused with a clear message', async (t) => {
  await t.rejects(createS3Storage(s3Config({ S3_PUBLIC_ENDPOINT: 'https://example.com/s3' })), /must have no path/);
  await t.rejects(createS3Storage(s3Config({ S3_ENDPOINT: 'ftp://minio:9000' })), /http/);
  t.throws(() => s3Config({ S3_ACCESS_KEY: '' }), /S3_ACCESS_KEY must be set/);
});

t.test('start-up fails when the S3 server cannot be reached', async (t) => {
  const storage = await createS3Storage(config);
  // Same credentials, a port nobody listens on: start-up must fail rather than hang or pass.
  const down = await (async () => {
    const { createServer } = await import('node:net');
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const p = (srv.address() as AddressInfo).port;
    await new Promise<void>((r) => srv.close(() => r()));
    return p;
  })();
  await t.resolves(storage.ping());
  await t.rejects(createS3Storage(s3Config({ S3_ENDPOINT: `http://127.0.0.1:${down}` })));
});

t.test('the whole app starts on the s3 driver and /readyz checks the bucket', async (t) => {
  const { buildTestApp } = await import('../helpers.js');
  const { app } = await buildTestApp(t, {
    STORAGE_DRIVER: 's3',
    S3_ENDPOINT: internal,
    S3_PUBLIC_ENDPOINT: publicEndpoint,
    S3_BUCKET: 'shower-beer-app',
    S3_ACCESS_KEY: 'S3RVER',
    S3_SECRET_KEY: 'S3RVER',
  });
  t.equal(app.storage.driver, 's3');
  const ready = await app.inject({ method: 'GET', url: '/readyz' });
  t.equal(ready.statusCode, 200, ready.body);
  t.same(ready.json().checks, { database: 'ok', storage: 'ok' });
  t.equal(await raw.bucketExists('shower-beer-app'), true, 'bucket made at start-up');
});

t.test('a photo goes the whole way on S3: presign, browser PUT, create-post, served under /media', async (t) => {
  const { buildTestApp, bearer } = await import('../helpers.js');
  const sharp = (await import('sharp')).default;
  const { app, createUser } = await buildTestApp(t, {
    STORAGE_DRIVER: 's3',
    S3_ENDPOINT: internal,
    S3_PUBLIC_ENDPOINT: publicEndpoint,
    S3_BUCKET: 'shower-beer-flow',
    S3_ACCESS_KEY: 'S3RVER',
    S3_SECRET_KEY: 'S3RVER',
  });
  const alice = await createUser('alice');
  const presign = await app.inject({
    method: 'POST',
    url: '/api/presign-upload',
    headers: bearer(alice.token),
    payload: { fileName: 'beer.jpg', fileType: 'image/jpeg' },
  });
  t.equal(presign.statusCode, 200, presign.body);
  const { uploadUrl, s3Key } = presign.json() as { uploadUrl: string; s3Key: string };
  t.equal(new URL(uploadUrl).origin, publicEndpoint, 'the browser uploads straight to S3');

  const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#d9a400' } }).jpeg().toBuffer();
  const put = await fetch(uploadUrl, { method: 'PUT', body: jpeg, headers: { 'content-type': 'image/jpeg' } });
  t.equal(put.status, 200);

  const created = await app.inject({
    method: 'POST',
    url: '/api/create-post',
    headers: bearer(alice.token),
    payload: { s3Key, caption: 'Cold one', isAnonymous: false },
  });
  t.equal(created.statusCode, 201, created.body);
  const post = created.json() as { s3Url: string };
  const image = await app.inject({ method: 'GET', url: post.s3Url });
  t.equal(image.statusCode, 200, `served from the bucket: ${post.s3Url}`);
  t.match(String(image.headers['content-type']), /^image\//);
  t.ok(image.rawPayload.length > 0);
});
