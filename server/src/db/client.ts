import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import * as schema from './schema.js';

export interface DatabaseHandle {
  /** The connection: every repository prepares its statements on it (drizzle only migrates). */
  sqlite: Database.Database;
  close(): void;
}

/**
 * Opens (creating if needed) the SQLite database, sets the pragmas every
 * connection needs, and applies the committed migrations.
 */
export function openDatabase(file: string, migrationsDir: string): DatabaseHandle {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  // NORMAL is durable across process crashes in WAL mode; only an OS crash or
  // power cut can lose the last transactions, never corrupt the database.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  readPragmas(sqlite, 65536);
  migrate(drizzle(sqlite, { schema }), { migrationsFolder: migrationsDir });
  return {
    sqlite,
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

/** What every connection, the writer's and the readers', sets for its reads. */
function readPragmas(sqlite: Database.Database, cacheKiB: number) {
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('temp_store = MEMORY');
  sqlite.pragma(`cache_size = -${cacheKiB}`);
}
