// What scripts/release-fixture.ts writes and server/test/upgrade/releases.test.ts reads.
import { createHash } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Database from 'better-sqlite3';

export const FIXTURES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'tests', 'fixtures', 'releases');
export const FIXTURE_DB = 'shower-beer.db';

/** The release points of main and their versions (CHANGELOG.md); add each new release here. */
export const KNOWN_RELEASES: Record<string, string> = {
  '5b8735c': '0.1.0',
  e57354b: '0.2.0',
  '846e3e1': '0.3.0',
};

export interface FixturePerson {
  username: string;
  email: string;
  /** The password typed on the release's sign-up page. */
  password: string;
  /** operator, private, suspended, removed (as done through the release's API). */
  roles: string[];
}

export interface FixturePost {
  postid: number;
  author: string;
  caption: string;
  isAnonymous: boolean;
  /** How many photos (an album has more than one). */
  photos: number;
  /** The first photo's URL as the release's /api/user-posts gave it. */
  s3Url: string;
}

export interface FixtureManifest {
  format: 1;
  version: string;
  commit: string;
  createdAt: string;
  /** What the release's API let the script do (false: the release had no route for it). */
  made: Record<string, boolean>;
  people: FixturePerson[];
  posts: FixturePost[];
  /** The bell's unread count per person when the server stopped (where the release had notifications). */
  notifications: Record<string, { unread: number }>;
  /** Post ids the release's feeds showed, newest first. */
  feeds: { discover: number[]; followFeedOfBob: number[] };
  /** The release's __drizzle_migrations rows. */
  migrations: Array<{ hash: string; createdAt: number }>;
  /** Rows per table (FTS shadow tables included). */
  tables: Record<string, number>;
  /** Sum of every `*_count` column, per table.column. */
  counters: Record<string, number>;
  /** Per table, its columns and the sha256 of every row's values in them (rowDigests). */
  rows: Record<string, { columns: string[]; sha256: string }>;
  /** Every stored media file, by its URL path, and the sha256 of its bytes. */
  photos: Record<string, string>;
  /** Folder of the backup the release's own `npm run backup` made (null: it had none). */
  backup: string | null;
}

/** Every table's row count (FTS shadow tables included: they must follow their table). */
export function tableCounts(db: Database.Database): Record<string, number> {
  const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>;
  const counts: Record<string, number> = {};
  for (const { name } of names) counts[name] = (db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n;
  return counts;
}

/** The sum of every stored counter column (`*_count`), per table.column. */
export function counterSums(db: Database.Database): Record<string, number> {
  const sums: Record<string, number> = {};
  const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>;
  for (const { name } of names) {
    for (const col of db.prepare(`SELECT name FROM pragma_table_info(?)`).all(name) as Array<{ name: string }>) {
      if (!/_count$/.test(col.name)) continue;
      sums[`${name}.${col.name}`] = (db.prepare(`SELECT coalesce(sum("${col.name}"), 0) AS n FROM "${name}"`).get() as { n: number }).n;
    }
  }
  return sums;
}

/**
 * Per table, the sha256 of all its rows' values in `columns` (default: the table's own), rows
 * sorted by every column: the same digest after an upgrade means every row kept its values in
 * the columns the release had, whatever the upgrade added or however it rebuilt the table.
 */
export function rowDigest(db: Database.Database, table: string, columns: string[]): string {
  const list = columns.map((c) => `"${c}"`).join(', ');
  const hash = createHash('sha256');
  const rows = db.prepare(`SELECT ${list} FROM "${table}" ORDER BY ${columns.map((_, i) => i + 1).join(', ')}`).raw().iterate() as Iterable<unknown[]>;
  for (const row of rows) hash.update(`${JSON.stringify(row.map((v) => (Buffer.isBuffer(v) ? v.toString('base64') : v)))}\n`);
  return hash.digest('hex');
}

export function rowDigests(db: Database.Database): Record<string, { columns: string[]; sha256: string }> {
  const out: Record<string, { columns: string[]; sha256: string }> = {};
  const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>;
  for (const { name } of names) {
    const columns = (db.prepare('SELECT name FROM pragma_table_info(?)').all(name) as Array<{ name: string }>).map((c) => c.name);
    out[name] = { columns, sha256: rowDigest(db, name, columns) };
  }
  return out;
}
