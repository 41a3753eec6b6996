import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { createWriteBatcher } from '../../src/kernel/db/write-batch.js';

/** A WAL database with a writer connection and a second one that sees only commits. */
function setup(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'shower-beer-batch-'));
  const writer = new Database(join(dir, 'db.sqlite'));
  writer.pragma('journal_mode = WAL');
  writer.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL UNIQUE)');
  const other = new Database(join(dir, 'db.sqlite'), { readonly: true });
  t.teardown(() => {
    other.close();
    writer.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const insert = writer.prepare<[string]>('INSERT INTO t (v) VALUES (?)');
  // Like the repositories' writes: a transaction function, a savepoint when a batch is open.
  const add = writer.transaction((v: string, fail?: string) => {
    insert.run(v);
    if (fail) throw new Error(fail);
    return v;
  });
  const committed = () => (other.prepare('SELECT v FROM t ORDER BY id').pluck().all() as string[]);
  return { writer, add, committed };
}

t.test('writes sent together commit together, in order, and only then resolve', async (t) => {
  const { writer, add, committed } = setup(t);
  const batch = createWriteBatcher(writer);
  const seenByOther: string[][] = [];
  const results = Promise.all([
    batch.run(() => add('a')),
    batch.run(() => {
      // Inside the batch: "a" is written but not committed, so another connection cannot see it.
      seenByOther.push(committed());
      return add('b');
    }),
    batch.run(() => add('c')),
  ]);
  t.same(committed(), [], 'nothing is committed before the batch runs');
  t.same(await results, ['a', 'b', 'c']);
  t.same(seenByOther, [[]], 'one transaction for the three');
  t.same(committed(), ['a', 'b', 'c'], 'all committed, in the order sent');
  t.notOk(writer.inTransaction);
});

t.test('a write that fails is rolled back alone', async (t) => {
  const { writer, add, committed } = setup(t);
  const batch = createWriteBatcher(writer);
  const outcomes = await Promise.allSettled([
    batch.run(() => add('a')),
    batch.run(() => add('b', 'no such post')),
    batch.run(() => add('a')), // UNIQUE: fails in SQLite
    batch.run(() => add('c')),
  ]);
  t.same(
    outcomes.map((o) => o.status),
    ['fulfilled', 'rejected', 'rejected', 'fulfilled'],
  );
  t.equal((outcomes[1] as PromiseRejectedResult).reason.message, 'no such post', 'each failure keeps its own error');
  t.match((outcomes[2] as PromiseRejectedResult).reason.message, /UNIQUE/);
  t.same(committed(), ['a', 'c'], 'the failed writes left nothing; the others stand');
});

t.test('if the transaction is lost, every write in it fails and none is committed', async (t) => {
  const { writer, add, committed } = setup(t);
  const batch = createWriteBatcher(writer);
  const outcomes = await Promise.allSettled([
    batch.run(() => add('a')),
    batch.run(() => {
      // What SQLite does on some errors (disk full, I/O): the whole transaction is rolled back.
      writer.exec('ROLLBACK');
      throw new Error('disk I/O error');
    }),
    batch.run(() => add('c')),
  ]);
  t.same(
    outcomes.map((o) => o.status),
    ['rejected', 'rejected', 'rejected'],
    'the write acknowledged before the loss is not acknowledged',
  );
  t.same(committed(), []);
  t.same(await batch.run(() => add('d')), 'd', 'the next batch works');
  t.same(committed(), ['d']);
});

t.test('more writes than a batch holds go in the next batches', async (t) => {
  const { writer, add, committed } = setup(t);
  const batch = createWriteBatcher(writer, 2);
  const values = ['a', 'b', 'c', 'd', 'e'];
  t.same(await Promise.all(values.map((v) => batch.run(() => add(v)))), values);
  t.same(committed(), values);
});

t.test('a batch never joins a transaction left open', async (t) => {
  const { writer, add, committed } = setup(t);
  const batch = createWriteBatcher(writer);
  writer.exec('BEGIN');
  await t.rejects(batch.run(() => add('a')), /already open/);
  writer.exec('ROLLBACK');
  t.same(committed(), []);
});
