// Going back after an upgrade: an older server started on a database a newer release migrated
// must stop before it writes anything (server/src/kernel/db/client.ts, checkNotNewer), naming both
// versions, instead of letting drizzle skip the unknown migrations and run old code on a new schema.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import t from 'tap';
import app from '../../src/app.js';
import { findAppRoot, loadConfig } from '../../src/kernel/config.js';
import { NewerDatabaseError, openDatabase, readJournal } from '../../src/kernel/db/client.js';
import { fastifyOptions } from '../../src/fastify-options.js';
import { APP_VERSION, versionNumber } from '../../src/kernel/version.js';

const migrations = join(findAppRoot(), 'migrations');
const fileHash = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Today's migrations folder without its newest migration: the release before. */
function olderMigrations(t: { teardown(fn: () => unknown): void }): { dir: string; dropped: string; newestKept: string } {
  const dir = mkdtempSync(join(tmpdir(), 'shower-beer-older-migrations-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(migrations, dir, { recursive: true });
  const journalFile = join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: Array<{ tag: string }> };
  const dropped = journal.entries.pop()!.tag;
  rmSync(join(dir, `${dropped}.sql`));
  writeFileSync(journalFile, JSON.stringify(journal));
  return { dir, dropped, newestKept: journal.entries.at(-1)!.tag };
}

/** A fully migrated database, as if the next release (0.x+1) had last run it. */
function newerDatabase(t: { teardown(fn: () => unknown): void }): { dataDir: string; file: string } {
  const dataDir = mkdtempSync(join(tmpdir(), 'shower-beer-newer-db-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const file = join(dataDir, 'shower-beer.db');
  const handle = openDatabase(file, migrations);
  handle.sqlite.prepare("INSERT INTO users (sub, username, email, created_at) VALUES ('s1', 'ada', 'ada@example.test', 1)").run();
  handle.sqlite.pragma(`user_version = ${versionNumber('9.8.7')}`);
  handle.close();
  return { dataDir, file };
}

t.test('a database a newer release migrated: refused with both versions named, the file untouched', async (t) => {
  const { file } = newerDatabase(t);
  const older = olderMigrations(t);
  const before = fileHash(file);

  let error: unknown;
  try {
    openDatabase(file, older.dir);
  } catch (err) {
    error = err;
  }
  t.ok(error instanceof NewerDatabaseError, 'refused');
  const message = (error as Error).message;
  t.match(message, 'Shower Beer 9.8.7', 'names the version that wrote it');
  t.match(message, `Shower Beer ${APP_VERSION}`, 'and this server\'s');
  t.match(message, `1 migration(s) newer than ${older.newestKept}`, 'says how far ahead it is');
  t.match(message, /restore the backup/);

  t.equal(fileHash(file), before, 'the database file is byte for byte as it was');
  t.notOk(existsSync(`${file}-wal`) && readFileSync(`${file}-wal`).length > 0, 'nothing waiting in a -wal either');
  const db = new Database(file, { readonly: true });
  t.equal((db.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n, readJournal(migrations).length, 'its migrations as they were');
  t.equal(db.pragma('user_version', { simple: true }), versionNumber('9.8.7'), 'its version as it was');
  db.close();
});

t.test('the server refuses to start on it (the same check, before the app registers anything else)', async (t) => {
  const { dataDir, file } = newerDatabase(t);
  const older = olderMigrations(t);
  const before = fileHash(file);
  const config = { ...loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', WEB_DIST_DIR: join(dataDir, 'no-web'), READ_WORKERS: '0' }), migrationsDir: older.dir };
  const fastify = Fastify(fastifyOptions(config));
  let error: unknown;
  try {
    await fastify.register(app, { config });
    await fastify.ready();
  } catch (err) {
    error = err;
  }
  t.ok(error instanceof NewerDatabaseError, `refused: ${String(error)}`);
  await fastify.close().catch(() => {});
  t.equal(fileHash(file), before, 'the database file is unchanged');
});

t.test('the same release, or an older database, starts and records the version (never lowering it)', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'shower-beer-version-db-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const file = join(dataDir, 'shower-beer.db');
  const older = olderMigrations(t);
  const first = openDatabase(file, older.dir);
  t.same(first.applied, readJournal(older.dir).map((e) => e.tag), 'a new database: every migration applied');
  first.close();
  const second = openDatabase(file, migrations);
  t.same(second.applied, [older.dropped], 'the next release applies only what it adds');
  t.equal(second.sqlite.pragma('user_version', { simple: true }), versionNumber(APP_VERSION), 'and records its version');
  second.sqlite.pragma(`user_version = ${versionNumber('9.8.7')}`);
  second.close();
  const third = openDatabase(file, migrations);
  t.same(third.applied, [], 'nothing left to apply');
  t.equal(third.sqlite.pragma('user_version', { simple: true }), versionNumber('9.8.7'), 'a newer release\'s number is kept (same migrations: no refusal)');
  third.close();
});
