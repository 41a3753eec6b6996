import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Temporal } from '@js-temporal/polyfill';
import type { KvKey, MessageQueue } from '@fedify/fedify';
import { findAppRoot } from '../../src/kernel/config.js';
import { openDatabase, type DatabaseHandle } from '../../src/kernel/db/client.js';
import { createSqliteKvStore } from '../../src/federation/sqlite-kv-store.js';
import { createSqliteMessageQueue } from '../../src/federation/sqlite-message-queue.js';

/** A database file that can be closed and opened again, as a server restart does. */
function databaseFile(t: { teardown(fn: () => unknown): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'shower-beer-fed-'));
  const file = join(dir, 'test.db');
  const open: DatabaseHandle[] = [];
  t.teardown(() => {
    for (const handle of open) handle.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const handle = openDatabase(file, join(findAppRoot(), 'migrations'));
    open.push(handle);
    return handle;
  };
}

/** A clock the test moves. */
function clock(start = 1_800_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Listens until the test stops it; `seen` holds the messages handled, in order. */
function listen(queue: MessageQueue, handler: (message: unknown) => Promise<void> | void = () => {}) {
  const stop = new AbortController();
  const seen: unknown[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const done = queue.listen(
    async (message) => {
      await handler(message);
      seen.push(message);
      for (const w of waiters.filter((w) => seen.length >= w.count)) w.resolve();
    },
    { signal: stop.signal },
  );
  return {
    seen,
    /** Resolves once `count` messages were handled. */
    until: (count: number) => (seen.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }))),
    stop: async () => {
      stop.abort();
      await done;
    },
  };
}

const tick = (ms = 30) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('key-value store: get, set, delete, values as JSON, keys by prefix', async (t) => {
  const open = databaseFile(t);
  const kv = createSqliteKvStore(open().sqlite);
  t.equal(await kv.get(['nothing']), undefined);
  await kv.set(['a'], { n: 1, list: [1, 'two', null], nested: { ok: true } });
  t.same(await kv.get(['a']), { n: 1, list: [1, 'two', null], nested: { ok: true } });
  await kv.set(['a'], 'replaced');
  t.equal(await kv.get(['a']), 'replaced', 'set replaces');
  await kv.set(['a', 'b'], 1);
  await kv.set(['a', 'b', 'c'], 2);
  await kv.set(['a', 'c'], 3);
  await kv.set(['ab'], 4);
  await kv.set(['a"', 'x'], 5);
  // Listed in no particular order (Fedify asks for none): sorted here.
  const under = (prefix?: KvKey) =>
    collect(kv.list(prefix)).then((entries) =>
      entries.sort((x, y) => (x.key.join('/') < y.key.join('/') ? -1 : 1)).map((e) => [e.key, e.value]),
    );
  t.same(await under(['a']), [[['a'], 'replaced'], [['a', 'b'], 1], [['a', 'b', 'c'], 2], [['a', 'c'], 3]], 'a prefix lists itself and what is under it, not ["ab"]');
  t.same(await under(['a', 'b']), [[['a', 'b'], 1], [['a', 'b', 'c'], 2]]);
  t.equal((await under()).length, 6, 'no prefix: everything');
  await kv.delete(['a', 'b']);
  t.equal(await kv.get(['a', 'b']), undefined, 'deleted');
  t.equal(await kv.get(['a', 'b', 'c']), 2, 'what was under it stays');
});

t.test('key-value store: an entry with a ttl is gone once it expires; compare-and-swap', async (t) => {
  const open = databaseFile(t);
  const db = open().sqlite;
  const time = clock();
  const kv = createSqliteKvStore(db, { now: time.now });
  await kv.set(['short'], 'soon gone', { ttl: Temporal.Duration.from({ minutes: 5 }) });
  await kv.set(['kept'], 'stays');
  time.advance(5 * 60_000 - 1);
  t.equal(await kv.get(['short']), 'soon gone', 'there until its time');
  time.advance(1);
  t.equal(await kv.get(['short']), undefined, 'gone at its time');
  t.same((await collect(kv.list())).map((e) => e.key), [['kept']], 'and not listed');
  time.advance(60_000);
  await kv.set(['other'], 1);
  t.same(db.prepare('SELECT key FROM federation_kv ORDER BY key').pluck().all(), ['["kept"]', '["other"]'], 'a later write sweeps the expired row out');

  t.equal(await kv.cas!(['c'], undefined, { v: 1 }), true, 'cas on an absent key expecting nothing sets it');
  t.equal(await kv.cas!(['c'], { v: 2 }, { v: 3 }), false, 'cas with a stale expectation changes nothing');
  t.same(await kv.get(['c']), { v: 1 });
  t.equal(await kv.cas!(['c'], { v: 1 }, { v: 3 }), true);
  t.same(await kv.get(['c']), { v: 3 });
});

t.test('key-value store: entries outlive the database being closed and opened again', async (t) => {
  const open = databaseFile(t);
  const first = open();
  await createSqliteKvStore(first.sqlite).set(['remote', 'key'], { pem: 'x' }, { ttl: Temporal.Duration.from({ hours: 1 }) });
  first.close();
  t.same(await createSqliteKvStore(open().sqlite).get(['remote', 'key']), { pem: 'x' });
});

t.test('message queue: a delayed message waits for its time; others run meanwhile', async (t) => {
  const open = databaseFile(t);
  const time = clock();
  const queue = createSqliteMessageQueue(open().sqlite, { now: time.now, pollMs: 10 });
  await queue.enqueue({ n: 'later' }, { delay: Temporal.Duration.from({ hours: 1 }) });
  await queue.enqueue({ n: 'now' });
  t.same(await queue.getDepth!(), { queued: 2, ready: 1, delayed: 1 });
  const listener = listen(queue);
  t.teardown(listener.stop);
  await listener.until(1);
  await tick(60);
  t.same(listener.seen, [{ n: 'now' }], 'the delayed one has not run after several polls');
  time.advance(60 * 60_000);
  await listener.until(2);
  t.same(listener.seen, [{ n: 'now' }, { n: 'later' }], 'it runs once its hour has passed');
  t.same(await queue.getDepth!(), { queued: 0, ready: 0, delayed: 0 }, 'a handled message is removed');
  await t.rejects(queue.enqueue({}, { delay: Temporal.Duration.from({ seconds: -1 }) }), RangeError, 'a negative delay is refused');
});

t.test('message queue: what was enqueued, or taken but not finished, runs after the database is opened again', async (t) => {
  const open = databaseFile(t);
  const first = open();
  const queue = createSqliteMessageQueue(first.sqlite, { pollMs: 10 });
  await queue.enqueueMany!([{ n: 1 }, { n: 2 }]);
  // A handler that never finishes, as a process killed mid-delivery: message 1 stays claimed.
  const stuck = listen(queue, () => new Promise(() => {}));
  await tick(50);
  await stuck.stop();
  t.equal(first.sqlite.prepare('SELECT count(*) FROM federation_queue WHERE claimed_at IS NOT NULL').pluck().get(), 2, 'both were taken (two workers), neither finished');
  first.close();

  const second = open();
  const restarted = listen(createSqliteMessageQueue(second.sqlite, { pollMs: 10 }));
  t.teardown(restarted.stop);
  await restarted.until(2);
  t.same(restarted.seen, [{ n: 1 }, { n: 2 }], 'after the restart both run, in order');
  await tick();
  t.equal(second.sqlite.prepare('SELECT count(*) FROM federation_queue').pluck().get(), 0, 'and are gone');
});

t.test('message queue: messages with one ordering key run one at a time, in order; a failing handler does not stop the queue', async (t) => {
  const open = databaseFile(t);
  const failures: unknown[] = [];
  const queue = createSqliteMessageQueue(open().sqlite, { pollMs: 10, workers: 4, onError: (e) => failures.push(e) });
  let running = 0;
  let most = 0;
  const order: number[] = [];
  const listener = listen(queue, async (message) => {
    const { n, fail } = message as { n: number; fail?: boolean };
    running++;
    most = Math.max(most, running);
    await tick(5);
    running--;
    order.push(n);
    if (fail) throw new Error('remote server down');
  });
  t.teardown(listener.stop);
  await queue.enqueue({ n: 1, fail: true }, { orderingKey: 'post:1' });
  await queue.enqueue({ n: 2 }, { orderingKey: 'post:1' });
  await queue.enqueue({ n: 3 }, { orderingKey: 'post:1' });
  await listener.until(2);
  await tick(50);
  t.same(order, [1, 2, 3], 'in order');
  t.equal(most, 1, 'never two of one key at once');
  t.equal(failures.length, 1, 'the failure is reported');
});
