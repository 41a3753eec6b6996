// `npm run backup -- <dir>`: a consistent copy of a running (or stopped) server's data.
//
//   <dir>/shower-beer.db   SQLite online backup (one consistent snapshot, taken while writes go on)
//   <dir>/storage/media/   the processed images (local storage driver)
//   <dir>/keys/            the embedded provider's signing key and the upload-URL secret (keep <dir> private)
//   <dir>/manifest.json    what was copied, row counts, and the check results
//
// With STORAGE_DRIVER=s3 the images live in the bucket: back it up with the S3 tool
// (e.g. `mc mirror minio/shower-beer <dir>/bucket`), see docs/reliability.md.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { ConfigError, loadConfig, type Config } from '../server/src/kernel/config.js';

export const DB_FILE = 'shower-beer.db';

export interface BackupManifest {
  format: 1;
  createdAt: string;
  sourceDataDir: string;
  storageDriver: 'local' | 's3';
  database: { file: string; bytes: number; integrity: string; counts: Record<string, number> };
  media: { files: number; bytes: number; missingForPosts: string[] } | { skipped: string };
  keys: string[];
}

const TABLES = ['users', 'posts', 'likes', 'comments', 'follows', 'uploads'] as const;

export function tableCounts(db: Database.Database): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) counts[table] = (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
  return counts;
}

/** Copies files under `from` that are not in `to` yet (media files are immutable: written once, never changed). */
function copyNewFiles(from: string, to: string, stats: { files: number; bytes: number }) {
  if (!existsSync(from)) return;
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const src = join(from, entry.name);
    const dest = join(to, entry.name);
    if (entry.isDirectory()) copyNewFiles(src, dest, stats);
    else if (entry.isFile() && !existsSync(dest)) {
      try {
        copyFileSync(src, dest);
        stats.files++;
        stats.bytes += statSync(dest).size;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err; // deleted while copying: fine
      }
    }
  }
}

/** Posts in the backed-up database whose images (an album's other photos' too) are not in the backup. */
export function missingMedia(db: Database.Database, mediaDir: string): string[] {
  const rows = db
    .prepare(
      `SELECT id, media_key AS mediaKey, 0 AS position FROM posts
       UNION ALL SELECT post_id, media_key, position FROM post_photos`,
    )
    .all() as { id: number; mediaKey: string; position: number }[];
  return rows
    .filter((r) => !existsSync(join(mediaDir, r.mediaKey, 'display.webp')) || !existsSync(join(mediaDir, r.mediaKey, 'thumb.webp')))
    .map((r) => `post ${r.id}${r.position > 0 ? ` photo ${r.position + 1}` : ''} (${r.mediaKey})`);
}

/**
 * Backs up `config`'s data into `dest` (which must not exist or be empty).
 * Media is copied before and after the database snapshot: a file deleted
 * after the first pass is still in the backup, and a post created before the
 * snapshot wrote its images before its row, so the second pass finds them.
 */
export async function backup(config: Config, dest: string, log: (line: string) => void = () => {}): Promise<BackupManifest> {
  dest = resolve(dest);
  if (existsSync(dest) && readdirSync(dest).length > 0) throw new Error(`${dest} is not empty: back up into a new folder`);
  if (!existsSync(config.databaseFile)) throw new Error(`no database at ${config.databaseFile}: is DATA_DIR right?`);
  mkdirSync(dest, { recursive: true, mode: 0o700 });

  const local = config.storage.driver === 'local';
  const mediaFrom = join(config.storage.localDir, 'media');
  const mediaTo = join(dest, 'storage', 'media');
  const stats = { files: 0, bytes: 0 };
  if (local) copyNewFiles(mediaFrom, mediaTo, stats);

  const source = new Database(config.databaseFile, { fileMustExist: true });
  source.pragma('busy_timeout = 10000');
  const target = join(dest, DB_FILE);
  try {
    // All remaining pages in one step: one read transaction, so one consistent snapshot.
    await source.backup(target, { progress: () => 0x7fffffff });
  } finally {
    source.close();
  }
  log(`database copied to ${target}`);
  if (local) copyNewFiles(mediaFrom, mediaTo, stats);

  const copy = new Database(target, { fileMustExist: true });
  let manifest: BackupManifest;
  try {
    const integrity = (copy.pragma('integrity_check', { simple: true }) as string) ?? 'unknown';
    if (integrity !== 'ok') throw new Error(`the copied database fails integrity_check: ${integrity}`);
    const missing = local ? missingMedia(copy, mediaTo) : [];
    manifest = {
      format: 1,
      createdAt: new Date().toISOString(),
      sourceDataDir: config.dataDir,
      storageDriver: config.storage.driver,
      database: { file: DB_FILE, bytes: statSync(target).size, integrity, counts: tableCounts(copy) },
      media: local
        ? { ...stats, missingForPosts: missing }
        : { skipped: 'STORAGE_DRIVER=s3: back up the bucket with the S3 tool (see docs/reliability.md)' },
      keys: [],
    };
  } finally {
    copy.close();
  }

  const keysFrom = join(config.dataDir, 'keys');
  if (existsSync(keysFrom)) {
    mkdirSync(join(dest, 'keys'), { recursive: true, mode: 0o700 });
    for (const name of readdirSync(keysFrom)) {
      if (name.endsWith('.tmp')) continue;
      copyFileSync(join(keysFrom, name), join(dest, 'keys', name));
      chmodSync(join(dest, 'keys', name), 0o600);
      manifest.keys.push(name);
    }
  }
  writeFileSync(join(dest, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}

async function main() {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { help: { type: 'boolean', default: false } } });
  if (values.help || positionals.length !== 1) {
    console.log(`Usage: npm run backup -- <dir>
  Copies DATA_DIR (from the environment, default ./data) into <dir>, which must be new or empty.
  Safe while the server runs. Restore with: npm run restore -- <dir>`);
    process.exit(values.help ? 0 : 2);
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const started = Date.now();
  const manifest = await backup(config, positionals[0]!, (line) => console.log(line));
  const { counts } = manifest.database;
  console.log(
    `backup of ${config.dataDir} done in ${Date.now() - started} ms: ${counts.users} users, ${counts.posts} posts, ` +
      `${counts.likes} likes, ${counts.comments} comments, ${counts.follows} follows; integrity ${manifest.database.integrity}`,
  );
  if ('skipped' in manifest.media) console.log(`media: ${manifest.media.skipped}`);
  else {
    console.log(`media: ${manifest.media.files} files, ${manifest.media.bytes} bytes`);
    if (manifest.media.missingForPosts.length > 0) {
      console.warn(`warning: images missing for ${manifest.media.missingForPosts.length} posts (deleted during the backup?): ${manifest.media.missingForPosts.slice(0, 10).join(', ')}`);
    }
  }
  console.log('the backup holds the signing key and upload secret: keep it private');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((err) => {
    console.error(`backup failed: ${(err as Error).message}`);
    process.exit(1);
  });
}
