import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { get, type IncomingMessage } from 'node:http';
import { text } from 'node:stream/consumers';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { displayKey } from '../../src/kernel/storage/media-keys.js';
import { insertPost } from '../api/factories.js';
import { bearer, buildTestApp } from '../helpers.js';
import { listEntries } from './unzip.js';

const POSTS = 1_000;
/** A display image's usual size: the zip then weighs ~100 MB, twice the bound below. */
const PHOTO_BYTES = 100 * 1024;
const MB = 1024 * 1024;
/**
 * How much the server's process may grow while it streams the whole export. Streaming holds
 * a few 64 KB buffers per stage (storage read, yazl's pipes, the socket) and the
 * page of rows being written; the rest of the bound is V8's slack (garbage not yet
 * collected, heap pages kept). Holding the zip or the photos would take the ~100 MB
 * they weigh, so the bound is half of that.
 */
const MAX_GROWTH_MB = 50;

const { app, createUser } = await buildTestApp(t);
const heavy = await createUser('heavy');
const photo = randomBytes(PHOTO_BYTES);
const keys = app.database.sqlite.transaction(() =>
  Array.from({ length: POSTS }, (_, i) =>
    insertPost(app.database.sqlite, { userId: heavy.id, caption: `post ${i} ${'x'.repeat(i % 200)}`, createdAt: 1_000_000 + i }).mediaKey,
  ),
)();
for (const key of keys) await app.storage.write(displayKey(key), photo, 'image/webp');
const address = await app.listen({ port: 0, host: '127.0.0.1' });

/** GET /api/export over a real socket, read as a stream (inject would buffer the whole answer). */
function requestExport(): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    get(`${address}/api/export`, { headers: bearer(heavy.token) }, resolve).on('error', reject);
  });
}

/**
 * The downloading client, in a process of its own so the RSS sampled here is the
 * server's alone. It pauses for a second after 10 MB, as a slow connection would
 * (the server must wait for it, not read ahead into memory), and prints what it got:
 * the status, the byte count and the last 512 KB (the zip's central directory, ~80
 * bytes an entry).
 */
const CLIENT = `
const { get } = require('node:http');
get(process.env.EXPORT_URL, { headers: { authorization: 'Bearer ' + process.env.EXPORT_TOKEN } }, (res) => {
  let bytes = 0, paused = false, tail = [], tailBytes = 0;
  res.on('data', (chunk) => {
    bytes += chunk.length;
    tail.push(chunk);
    tailBytes += chunk.length;
    while (tailBytes - tail[0].length >= 512 * 1024) tailBytes -= tail.shift().length;
    if (!paused && bytes > 10 * 1024 * 1024) {
      paused = true;
      res.pause();
      setTimeout(() => res.resume(), 1000);
    }
  });
  res.on('end', () => process.stdout.write(JSON.stringify({ status: res.statusCode, bytes, tail: Buffer.concat(tail).toString('base64') })));
}).on('error', (err) => { console.error(err); process.exit(1); });
`;

t.test(`${POSTS} posts stream out without the server growing more than ${MAX_GROWTH_MB} MB`, async (t) => {
  await sleep(200);
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const started = performance.now();
  const client = spawn(process.execPath, ['-e', CLIENT], {
    env: { ...process.env, EXPORT_URL: `${address}/api/export`, EXPORT_TOKEN: heavy.token },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [output, [code]] = await Promise.all([text(client.stdout), once(client, 'exit')]);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  t.equal(code, 0, 'the client got to the end');
  const got = JSON.parse(output) as { status: number; bytes: number; tail: string };

  const growth = (peak - baseline) / MB;
  t.comment(
    `export of ${POSTS} posts: ${(got.bytes / MB).toFixed(1)} MB in ${seconds.toFixed(2)} s (with a 1 s pause of the client); ` +
      `server RSS ${(baseline / MB).toFixed(0)} MB before, peak growth ${growth.toFixed(1)} MB`,
  );
  t.equal(got.status, 200);
  t.ok(got.bytes > POSTS * PHOTO_BYTES, 'every photo went through');
  t.ok(growth < MAX_GROWTH_MB, `RSS grew ${growth.toFixed(1)} MB (bound ${MAX_GROWTH_MB} MB)`);

  const entries = listEntries(Buffer.from(got.tail, 'base64'));
  t.equal(entries.length, POSTS + 1, 'data.json and one photo per post');
  t.equal(entries[0]!.name, 'data.json');
  t.ok(entries.slice(1).every((e) => /^photos\/\d+\.webp$/.test(e.name) && e.size === PHOTO_BYTES), 'each photo whole');
});

t.test('a download cut short stops reading storage, and the server goes on answering', async (t) => {
  const storage = app.storage;
  const read = storage.read.bind(storage);
  let reads = 0;
  storage.read = (key) => {
    reads++;
    return read(key);
  };
  t.teardown(() => {
    storage.read = read;
  });

  const res = await requestExport();
  let bytes = 0;
  await new Promise<void>((resolve) => {
    res.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > 2 * MB) {
        res.destroy();
        resolve();
      }
    });
  });
  await sleep(300);
  const afterCut = reads;
  await sleep(700);
  t.equal(reads, afterCut, `no photo read after the client left (${afterCut} of ${POSTS} read)`);
  t.ok(afterCut < POSTS / 2, 'it stopped near where the client did');
  const other = await app.inject({ method: 'GET', url: '/api/storage', headers: bearer(heavy.token) });
  t.equal(other.statusCode, 200, 'the database connection is free for everyone else');
});
