import { Client } from 'minio';
import t from 'tap';
import { missingSwiftPackages, startSwift, SWIFT_PACKAGES } from '../../../scripts/stack/swift.js';
import { loadConfig, type Config } from '../../src/kernel/config.js';
import { clientOptionsFor, createS3Storage } from '../../src/kernel/storage/s3.js';
import { storageContract } from './contract.js';

// The s3 driver against OpenStack Swift's S3 API: unlike s3rver, Swift checks SigV4 signatures,
// so what is refused here is refused by the storage itself, as in production.

const missing = missingSwiftPackages();
if (missing.length && process.env.CI) {
  // CI installs them (.ci/run): there, their absence is a failure, not a reason to skip.
  t.fail(`OpenStack Swift is not installed in CI (missing: ${missing.join(', ')})`);
} else if (missing.length) {
  t.plan(
    0,
    `OpenStack Swift is not installed (missing: ${missing.join(', ')}); ` +
      `install the Debian packages to run this file: apt-get install --no-install-recommends ${SWIFT_PACKAGES}`,
  );
} else {
  await swiftTests();
}

async function swiftTests() {
  const appOrigin = 'http://localhost:3000';
  const started = Date.now();
  const swift = await startSwift({ appOrigins: [appOrigin] });
  t.comment(`Swift ready in ${Date.now() - started} ms at ${swift.endpoint}`);
  // The log of a failed run says why Swift refused or broke; printed before stop() removes it.
  t.teardown(async () => {
    if (!t.passing()) t.comment(`--- Swift log (last lines) ---\n${swift.logTail(60)}`);
    await swift.stop();
  });

  const env = {
    STORAGE_DRIVER: 's3',
    S3_ENDPOINT: swift.endpoint,
    S3_PUBLIC_ENDPOINT: swift.endpoint,
    S3_REGION: swift.region,
    S3_ACCESS_KEY: swift.accessKey,
    S3_SECRET_KEY: swift.secretKey,
  };
  const s3Config = (overrides: Record<string, string> = {}): Config =>
    loadConfig({ DATA_DIR: swift.dir, LOG_LEVEL: 'silent', S3_BUCKET: 'shower-beer-test', ...env, ...overrides });
  const config = s3Config();
  const raw = new Client(clientOptionsFor(swift.endpoint, config.storage.s3));
  // A 1-second upload link, signed now so that it has expired, without waiting, when it is tried below.
  const shortLived = await (await createS3Storage(config)).presignPut('uploads/7/short', 'image/jpeg', 1);
  const shortLivedSignedAt = Date.now();

  /** The S3 error code in an error answer's XML body. */
  const s3Code = (body: string) => /<Code>([^<]+)<\/Code>/.exec(body)?.[1];
  const put = (url: string | URL, body: Buffer, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'PUT', body, headers: { 'content-type': 'image/jpeg', ...headers } });

  t.test('storage contract (s3 driver on OpenStack Swift)', async (t) => {
    storageContract(t, () => createS3Storage(config));
  });

  t.test('a stream past 16 MB goes up as a multipart upload and reads back whole', async (t) => {
    const { Readable } = await import('node:stream');
    const storage = await createS3Storage(config);
    const parts = Array.from({ length: 17 }, (_, i) => Buffer.alloc(1024 * 1024, i));
    await storage.write('big/stream.bin', Readable.from(parts), 'application/octet-stream');
    t.same(await storage.stat('big/stream.bin'), { size: 17 * 1024 * 1024 });
    const back: Buffer[] = [];
    for await (const chunk of await storage.read('big/stream.bin')) back.push(chunk as Buffer);
    t.ok(Buffer.concat(back).equals(Buffer.concat(parts)), 'same bytes');
    await storage.delete('big/stream.bin');
    t.equal(await storage.stat('big/stream.bin'), null);
  });

  t.test('the bucket is created at start-up, and /readyz checks it', async (t) => {
    const { buildTestApp } = await import('../helpers.js');
    t.equal(await raw.bucketExists('shower-beer-ready'), false);
    const { app } = await buildTestApp(t, { ...env, S3_BUCKET: 'shower-beer-ready' });
    t.equal(await raw.bucketExists('shower-beer-ready'), true, 'created');
    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    t.equal(ready.statusCode, 200, ready.body);
    t.same(ready.json().checks, { database: 'ok', storage: 'ok' });
  });

  t.test('Swift itself accepts the presigned PUT and refuses tampered, misused and expired URLs', async (t) => {
    const storage = await createS3Storage(config);
    const body = Buffer.alloc(2048, 9);
    const url = new URL(await storage.presignPut('uploads/7/good', 'image/jpeg', 60));
    const sig = url.searchParams.get('X-Amz-Signature')!;

    const tampered = new URL(url);
    tampered.searchParams.set('X-Amz-Signature', (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1));
    const refusedTampered = await put(tampered, body);
    const tamperedBody = await refusedTampered.text();
    t.equal(refusedTampered.status, 403, 'a tampered signature is refused');
    t.equal(s3Code(tamperedBody), 'SignatureDoesNotMatch', 'SignatureDoesNotMatch, from Swift', { body: tamperedBody });

    const otherKey = new URL(url);
    otherKey.pathname = otherKey.pathname.replace(/good$/, 'other');
    const refusedOther = await put(otherKey, body);
    const otherBody = await refusedOther.text();
    t.equal(refusedOther.status, 403, 'the same signature for another key is refused');
    t.equal(s3Code(otherBody), 'SignatureDoesNotMatch', 'SignatureDoesNotMatch, from Swift', { body: otherBody });

    const longer = new URL(url);
    longer.searchParams.set('X-Amz-Expires', '604800');
    const refusedLonger = await put(longer, body);
    t.equal(refusedLonger.status, 403, 'a stretched expiry is refused');
    t.equal(s3Code(await refusedLonger.text()), 'SignatureDoesNotMatch');

    t.equal(await storage.stat('uploads/7/good'), null, 'nothing stored by the refused PUTs');
    t.equal(await storage.stat('uploads/7/other'), null);

    const accepted = await put(url, body);
    t.equal(accepted.status, 200, await accepted.text());
    t.same(await storage.stat('uploads/7/good'), { size: body.length }, 'the accepted PUT is stored');

    // X-Amz-Date is whole seconds: 1 s after it has surely passed 2 s after signing.
    await new Promise((r) => setTimeout(r, Math.max(0, shortLivedSignedAt + 2000 - Date.now())));
    const refusedExpired = await put(shortLived, body);
    const expiredBody = await refusedExpired.text();
    t.equal(refusedExpired.status, 403, 'an expired URL is refused');
    t.equal(s3Code(expiredBody), 'AccessDenied', 'AccessDenied, from Swift', { body: expiredBody });
    t.match(expiredBody, /<Message>Request has expired<\/Message>/, 'says it has expired');
    t.equal(await storage.stat('uploads/7/short'), null);
    await storage.delete('uploads/7/good');
  });

  t.test("CORS: the app's origin may PUT from a browser, another origin may not", async (t) => {
    const storage = await createS3Storage(config);
    const url = await storage.presignPut('uploads/8/cors', 'image/jpeg', 60);
    const preflight = (origin: string) =>
      fetch(url, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' },
      });

    const allowed = await preflight(appOrigin);
    t.equal(allowed.status, 200);
    t.equal(allowed.headers.get('access-control-allow-origin'), appOrigin);
    t.match(allowed.headers.get('access-control-allow-methods') ?? '', /\bPUT\b/);
    t.match(allowed.headers.get('access-control-allow-headers') ?? '', /content-type/i);

    const other = await preflight('http://evil.example');
    t.notOk(other.ok, `preflight from another origin fails (${other.status})`);
    t.equal(other.headers.get('access-control-allow-origin'), null, 'and allows no origin');

    // The PUT's own answer must name the origin too, or the browser hides its success.
    const res = await put(url, Buffer.from('x'), { origin: appOrigin });
    t.equal(res.status, 200);
    t.equal(res.headers.get('access-control-allow-origin'), appOrigin);
    t.match(res.headers.get('access-control-expose-headers') ?? '', /etag/i);
    await storage.delete('uploads/8/cors');
  });

  t.test('a photo goes the whole way on Swift: presign, PUT, create-post, served, deleted', async (t) => {
    const { buildTestApp, bearer } = await import('../helpers.js');
    const sharp = (await import('sharp')).default;
    const bucket = 'shower-beer-flow';
    const { app, createUser } = await buildTestApp(t, { ...env, S3_BUCKET: bucket });
    const keys = async () => {
      const out: string[] = [];
      for await (const item of raw.listObjectsV2(bucket, '', true) as AsyncIterable<{ name?: string }>) if (item.name) out.push(item.name);
      return out.sort();
    };
    const alice = await createUser('alice');
    const presign = await app.inject({
      method: 'POST',
      url: '/api/presign-upload',
      headers: bearer(alice.token),
      payload: { fileName: 'beer.jpg', fileType: 'image/jpeg' },
    });
    t.equal(presign.statusCode, 200, presign.body);
    const { uploadUrl, s3Key } = presign.json() as { uploadUrl: string; s3Key: string };
    t.equal(new URL(uploadUrl).origin, swift.endpoint);

    // Before the upload: create-post finds nothing in Swift and says so.
    const early = await app.inject({
      method: 'POST',
      url: '/api/create-post',
      headers: bearer(alice.token),
      payload: { s3Key, caption: 'Too soon', isAnonymous: false },
    });
    t.equal(early.statusCode, 409, early.body);
    t.match(early.json(), { error: String, message: 'The file has not been uploaded yet.' });

    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#d9a400' } }).jpeg().toBuffer();
    const uploaded = await put(uploadUrl, jpeg, { origin: 'http://localhost:3000' });
    t.equal(uploaded.status, 200);
    t.same(await keys(), [s3Key], 'the raw upload is in the bucket');

    const created = await app.inject({
      method: 'POST',
      url: '/api/create-post',
      headers: bearer(alice.token),
      payload: { s3Key, caption: 'Cold one', isAnonymous: false },
    });
    t.equal(created.statusCode, 201, created.body);
    const post = created.json() as { postid: number; s3Url: string; thumbnailUrl: string; width: number };
    t.equal(post.width, 64);
    for (const url of [post.s3Url, post.thumbnailUrl]) {
      const image = await app.inject({ method: 'GET', url });
      t.equal(image.statusCode, 200, `served from Swift: ${url}`);
      t.equal(image.headers['content-type'], 'image/webp');
      t.ok(image.rawPayload.length > 0);
    }
    const stored = await keys();
    t.equal(stored.length, 2, `display and thumbnail stored, the raw upload removed: ${stored.join(', ')}`);
    t.notOk(stored.includes(s3Key));

    const deleted = await app.inject({ method: 'DELETE', url: `/api/post?postId=${post.postid}`, headers: bearer(alice.token) });
    t.equal(deleted.statusCode, 200, deleted.body);
    t.same(await keys(), [], 'deleting the post deletes its images');
    t.equal((await app.inject({ method: 'GET', url: post.s3Url })).statusCode, 404);
  });

  t.test('stop() ends every Swift process and removes its folder', async (t) => {
    await swift.stop();
    const alive = swift.processes.filter(({ pid }) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });
    t.same(alive, [], 'no process left');
    const { existsSync } = await import('node:fs');
    t.notOk(existsSync(swift.dir), 'temp dir removed');
  });

  t.test('a process started for Swift dies with its parent, even one killed outright', async (t) => {
    const { spawn } = await import('node:child_process');
    const { readFileSync } = await import('node:fs');
    const module = new URL('../../../scripts/stack/swift.ts', import.meta.url).href;
    // A parent that starts a long sleep the way Swift's processes are started, says its pid, then waits.
    const parent = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { spawnTiedToParent } from ${JSON.stringify(module)};
         console.log(spawnTiedToParent('/bin/sleep', ['60'], { stdio: 'ignore' }).pid);
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    t.teardown(() => parent.kill('SIGKILL'));
    const pid = Number(await new Promise<string>((resolve) => parent.stdout!.once('data', (d: Buffer) => resolve(String(d)))));
    // Running, or a zombie waiting for init to reap it (the process has ended then).
    const running = () => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    // Past the shim: sleep itself runs (a parent killed earlier is caught by the shim's own check).
    const comm = () => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      } catch {
        return '';
      }
    };
    for (const until = Date.now() + 5000; comm() !== 'sleep' && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
    t.ok(pid > 0 && running() && comm() === 'sleep', `the child runs (pid ${pid})`);
    parent.kill('SIGKILL');
    const deadline = Date.now() + 5000;
    while (running() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    t.notOk(running(), 'the kernel ended it with its parent');
  });
}
