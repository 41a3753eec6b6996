import { join } from 'node:path';
import t, { type Test } from 'tap';
import { findAppRoot } from '../../src/kernel/config.js';
import { openDatabase } from '../../src/kernel/db/client.js';
import { createReadPool } from '../../src/feeds/read-pool.js';
import { NEWEST } from '../../src/kernel/paging.js';
import { createPostsRepository } from '../../src/posts/posts-repository.js';
import { insertPost } from '../api/factories.js';
import { freshDatabase } from '../helpers.js';

function setUp(t: Test) {
  const sqlite = freshDatabase(t, 'shower-beer-pool-');
  const user = sqlite.prepare("INSERT INTO users (sub, username, email, created_at) VALUES ('s1', 'ann', NULL, 1) RETURNING id").get() as { id: number };
  return { sqlite, viewer: user.id };
}

const page = (viewer: number) => ({ viewer, blockCount: 0, before: NEWEST, limit: 20 });
const text = (body: string | Buffer) => body.toString();

t.test('workers answer what the inline tasks answer, and see each commit at once', async (t) => {
  const { sqlite, viewer } = setUp(t);
  const inline = await createReadPool(sqlite, createPostsRepository(sqlite), 0);
  const pool = await createReadPool(sqlite, createPostsRepository(sqlite), 2);
  t.teardown(() => pool.close());
  t.equal(pool.threads().length, 2);
  t.equal(text(await pool.run('discover', page(viewer))), '[]');

  for (let i = 0; i < 5; i++) {
    insertPost(sqlite, { userId: viewer, caption: `post ${i}`, createdAt: 1_700_000_000_000 + i });
    // Committed on the main connection a moment ago: the workers' next page has it.
    const fromWorker = JSON.parse(text(await pool.run('discover', page(viewer))));
    t.equal(fromWorker.length, i + 1, `post ${i} is in the next page`);
    t.equal(fromWorker[0].caption, `post ${i}`);
  }
  const many = await Promise.all(Array.from({ length: 20 }, () => pool.run('discover', page(viewer))));
  const expected = text(await inline.run('discover', page(viewer)));
  t.ok(many.every((b) => text(b) === expected), 'twenty pages at once, all the same as inline');
});

t.test('a worker that dies is replaced; pages are answered meanwhile', async (t) => {
  const { sqlite, viewer } = setUp(t);
  insertPost(sqlite, { userId: viewer, caption: 'still here' });
  const pool = await createReadPool(sqlite, createPostsRepository(sqlite), 1);
  t.teardown(() => pool.close());
  const [first] = pool.threads();
  await first!.terminate();
  t.equal(pool.threads().length, 0, 'the dead worker is gone');
  const meanwhile = JSON.parse(text(await pool.run('discover', page(viewer))));
  t.equal(meanwhile[0].caption, 'still here', 'answered inline while no worker is up');
  // A worker boots in well under a second on an idle machine; a loaded CI runner took over 5 s,
  // so wait for the state (a thread up again) up to a minute, not for a guessed time.
  for (let i = 0; i < 600 && pool.threads().length === 0; i++) await new Promise((r) => setTimeout(r, 100));
  const [second] = pool.threads();
  t.ok(second && second.threadId !== first!.threadId, 'a new worker took its place');
  const again = JSON.parse(text(await pool.run('discover', page(viewer))));
  t.equal(again[0].caption, 'still here');
});

t.test('close ends the workers', async (t) => {
  const { sqlite } = setUp(t);
  const pool = await createReadPool(sqlite, createPostsRepository(sqlite), 2);
  const exits = pool.threads().map((w) => new Promise<number>((resolve) => w.once('exit', resolve)));
  await pool.close();
  t.same(await Promise.all(exits), [0, 0], 'both threads closed their connection and exited by themselves');
  t.equal(pool.threads().length, 0);
});

t.test('no workers for an in-memory database: the tasks run inline', async (t) => {
  const handle = openDatabase(':memory:', join(findAppRoot(), 'migrations'));
  t.teardown(() => handle.close());
  const pool = await createReadPool(handle.sqlite, createPostsRepository(handle.sqlite), 2);
  t.equal(pool.size, 0);
  t.equal(text(await pool.run('discover', page(1))), '[]');
});
