import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type * as DrizzleSqlite from 'drizzle-orm/better-sqlite3';
import type * as DrizzleMigrator from 'drizzle-orm/better-sqlite3/migrator';
import { APP_VERSION, versionName, versionNumber } from '../version.js';

const require = createRequire(import.meta.url);

export interface DatabaseHandle {
  /** The connection: every repository prepares its statements on it (drizzle only migrates). */
  sqlite: Database.Database;
  /** The migrations this open applied (their tags, oldest first; [] when none was due). */
  applied: string[];
  close(): void;
}

interface JournalEntry {
  idx: number;
  when: number;
  tag: string;
}

/** The migrations a folder holds, oldest first (drizzle's journal: `when` is what it records as created_at). */
export function readJournal(migrationsDir: string): JournalEntry[] {
  return (JSON.parse(readFileSync(join(migrationsDir, 'meta', '_journal.json'), 'utf8')) as { entries: JournalEntry[] }).entries;
}

/** A database written by a newer release than this server: starting on it could lose data. */
export class NewerDatabaseError extends Error {}

/**
 * Refuses, before anything is written, a database that a newer release migrated further than
 * the migrations this server has: drizzle would skip them silently and the older code would run
 * on a schema it does not know. Read-only: the file is left as it was.
 */
export function checkNotNewer(file: string, migrationsDir: string): void {
  if (file === ':memory:' || !existsSync(file)) return;
  const journal = readJournal(migrationsDir);
  const known = new Set(journal.map((e) => e.when));
  const newestKnown = journal.at(-1);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
    if (!hasTable) return;
    const rows = db.prepare('SELECT created_at AS createdAt FROM __drizzle_migrations').all() as Array<{ createdAt: number | string }>;
    const unknown = rows.map((r) => Number(r.createdAt)).filter((when) => !known.has(when) && when > (newestKnown?.when ?? 0));
    if (unknown.length === 0) return;
    const written = versionName(Number(db.pragma('user_version', { simple: true })));
    throw new NewerDatabaseError(
      `This database (${file}) was last run by Shower Beer ${written}, which applied ${unknown.length} migration(s) newer than ` +
        `${newestKnown?.tag ?? 'any'}, the newest this server, Shower Beer ${APP_VERSION}, knows. Starting would run old code on a ` +
        `schema it does not know, so nothing was changed. Run Shower Beer ${written} or newer, or restore the backup made ` +
        `before the upgrade (docs/self-hosting.md, "Upgrade").`,
    );
  } finally {
    db.close();
  }
}

/**
 * Opens (creating if needed) the SQLite database, sets the pragmas every
 * connection needs, and applies the committed migrations, after refusing a
 * database a newer release wrote (checkNotNewer). Records the app's version in
 * PRAGMA user_version, so that an older release's refusal can name it.
 */
export function openDatabase(file: string, migrationsDir: string): DatabaseHandle {
  checkNotNewer(file, migrationsDir);
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  // NORMAL is durable across process crashes in WAL mode; only an OS crash or
  // power cut can lose the last transactions, never corrupt the database.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  readPragmas(sqlite, 65536);
  const before = appliedCreatedAt(sqlite);
  // A migration that builds an index or rebuilds a table sorts every row: with temp_store =
  // MEMORY that sort lives in the heap (hundreds of MiB for the reference set's 5M likes,
  // scripts/bench-migrations.ts); on disk it takes what it needs. Reads keep MEMORY after.
  sqlite.pragma('temp_store = FILE');
  try {
    if (migrationsDue(before, readJournal(migrationsDir))) applyMigrations(sqlite, migrationsDir);
  } finally {
    sqlite.pragma('temp_store = MEMORY');
  }
  const after = appliedCreatedAt(sqlite);
  const applied = readJournal(migrationsDir)
    .filter((e) => after.has(e.when) && !before.has(e.when))
    .map((e) => e.tag);
  // Never lowered: an older release on the same migrations leaves the newer one's number.
  const version = versionNumber(APP_VERSION);
  if (Number(sqlite.pragma('user_version', { simple: true })) < version) sqlite.pragma(`user_version = ${version}`);
  return {
    sqlite,
    applied,
    close() {
      if (!sqlite.open) return;
      try {
        sqlite.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        sqlite.close();
      }
    },
  };
}

/**
 * A second, read-only connection to a database openDatabase has set up (WAL,
 * migrated): for read workers. It sees every transaction committed before each
 * of its statements starts.
 */
export function openReader(file: string): Database.Database {
  const sqlite = new Database(file, { fileMustExist: true });
  sqlite.pragma('query_only = ON');
  readPragmas(sqlite, 32768);
  return sqlite;
}

/**
 * Whether drizzle's migrator would apply anything: it applies each migration of the journal whose
 * `when` is later than the newest one recorded (drizzle-orm's sqlite dialect, `migrate`).
 */
function migrationsDue(applied: Set<number>, journal: JournalEntry[]): boolean {
  const newest = applied.size ? Math.max(...applied) : -Infinity;
  return journal.some((e) => e.when > newest);
}

/**
 * drizzle's migrator, loaded only when a migration is due. Loading it (its ES module build, as an
 * import would) cost about 0.7 s of CPU, and its CommonJS build about 0.2 s, at every start, in
 * every read worker (which opens the database with openReader) and in every test process, nearly
 * all of which have nothing to apply. Repositories use better-sqlite3 directly; drizzle only migrates.
 */
function applyMigrations(sqlite: Database.Database, migrationsDir: string): void {
  const { drizzle } = require('drizzle-orm/better-sqlite3') as typeof DrizzleSqlite;
  const { migrate } = require('drizzle-orm/better-sqlite3/migrator') as typeof DrizzleMigrator;
  migrate(drizzle(sqlite), { migrationsFolder: migrationsDir });
}

function appliedCreatedAt(sqlite: Database.Database): Set<number> {
  const hasTable = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (!hasTable) return new Set();
  return new Set((sqlite.prepare('SELECT created_at AS createdAt FROM __drizzle_migrations').all() as Array<{ createdAt: number | string }>).map((r) => Number(r.createdAt)));
}

/** What every connection, the writer's and the readers', sets for its reads. */
function readPragmas(sqlite: Database.Database, cacheKiB: number) {
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('temp_store = MEMORY');
  sqlite.pragma(`cache_size = -${cacheKiB}`);
}
