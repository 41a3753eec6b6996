// `npm run restore -- <dir> [--force]`: brings a backup made by `npm run backup` back into DATA_DIR.
//
// Refuses while a server uses DATA_DIR (its /healthz answers, or another process has the
// database open, seen through /proc on Linux) unless --force. The database file is replaced atomically (copied
// beside it, then renamed over it) after its stale -wal/-shm files are removed, so a
// crash part-way leaves either the old database or the restored one, never a mix.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, openSync, fsyncSync, closeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { ConfigError, loadConfig, type Config } from '../server/src/kernel/config.js';
import { DB_FILE, tableCounts, type BackupManifest } from './backup.js';

function copyTree(from: string, to: string) {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const src = join(from, entry.name);
    const dest = join(to, entry.name);
    if (entry.isDirectory()) copyTree(src, dest);
    else if (entry.isFile()) copyFileSync(src, dest);
  }
}

function fsyncFile(path: string) {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Why the data looks in use, or null. */
export async function inUse(config: Config): Promise<string | null> {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  try {
    const res = await fetch(`http://${host.includes(':') ? `[${host}]` : host}:${config.port}/healthz`, { signal: AbortSignal.timeout(1000) });
    if (res.ok) return `a server answers at ${host}:${config.port}`;
  } catch {
    // Nothing listening: fine.
  }
  const holder = processHolding(config.databaseFile);
  return holder === null ? null : `the database is open in process ${holder}`;
}

/** Another process with the database (or its WAL) open, found through /proc (Linux; elsewhere null). */
function processHolding(file: string): number | null {
  const wanted = new Set([file, `${file}-wal`, `${file}-shm`]);
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid);
  } catch {
    return null;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to look at
    }
    for (const fd of fds) {
      try {
        if (wanted.has(readlinkSync(`/proc/${pid}/fd/${fd}`))) return Number(pid);
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}

export interface RestoreResult {
  counts: Record<string, number>;
  mediaFiles: number;
  keys: string[];
}

export async function restore(config: Config, from: string, opts: { force?: boolean } = {}): Promise<RestoreResult> {
  from = resolve(from);
  const manifestFile = join(from, 'manifest.json');
  const backupDb = join(from, DB_FILE);
  if (!existsSync(manifestFile) || !existsSync(backupDb)) throw new Error(`${from} is not a backup (no manifest.json or ${DB_FILE})`);
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as BackupManifest;
  if (manifest.format !== 1) throw new Error(`unknown backup format ${String(manifest.format)}`);

  const busy = await inUse(config);
  if (busy && !opts.force) throw new Error(`refusing to restore over data in use: ${busy}. Stop the server first (or pass --force).`);

  const check = new Database(backupDb, { readonly: true, fileMustExist: true });
  let counts: Record<string, number>;
  try {
    const integrity = check.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new Error(`the backup's database fails integrity_check: ${String(integrity)}`);
    counts = tableCounts(check);
  } finally {
    check.close();
  }

  const target = config.databaseFile;
  mkdirSync(dirname(target), { recursive: true });
  const tmp = `${target}.restore-${process.pid}.tmp`;
  copyFileSync(backupDb, tmp);
  fsyncFile(tmp);
  // A -wal left from the old database would be replayed into the restored one: remove it first.
  for (const suffix of ['-wal', '-shm', '-journal']) rmSync(`${target}${suffix}`, { force: true });
  renameSync(tmp, target);
  fsyncFile(dirname(target));

  let mediaFiles = 0;
  const mediaFrom = join(from, 'storage', 'media');
  if (config.storage.driver === 'local' && existsSync(mediaFrom)) {
    const mediaDir = join(config.storage.localDir, 'media');
    const staged = `${mediaDir}.restore-${process.pid}`;
    const old = `${mediaDir}.old-${process.pid}`;
    rmSync(staged, { recursive: true, force: true });
    copyTree(mediaFrom, staged);
    mediaFiles = countFiles(staged);
    if (existsSync(mediaDir)) renameSync(mediaDir, old);
    renameSync(staged, mediaDir);
    rmSync(old, { recursive: true, force: true });
  }

  const keys: string[] = [];
  const keysFrom = join(from, 'keys');
  if (existsSync(keysFrom)) {
    const keysTo = join(config.dataDir, 'keys');
    mkdirSync(keysTo, { recursive: true, mode: 0o700 });
    for (const name of readdirSync(keysFrom)) {
      const staged = join(keysTo, `${name}.restore-${process.pid}.tmp`);
      copyFileSync(join(keysFrom, name), staged);
      chmodSync(staged, 0o600);
      renameSync(staged, join(keysTo, name));
      keys.push(name);
    }
  }
  return { counts, mediaFiles, keys };
}

function countFiles(dir: string): number {
  let n = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) n += entry.isDirectory() ? countFiles(join(dir, entry.name)) : 1;
  return n;
}

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { force: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
  });
  if (values.help || positionals.length !== 1) {
    console.log(`Usage: npm run restore -- <dir> [--force]
  Restores a backup made by "npm run backup" into DATA_DIR (from the environment, default ./data).
  Stop the server first; --force restores even when the data looks in use.`);
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
  const result = await restore(config, positionals[0]!, { force: values.force });
  const c = result.counts;
  console.log(
    `restored into ${config.dataDir}: ${c.users} users, ${c.posts} posts, ${c.likes} likes, ${c.comments} comments, ${c.follows} follows; ` +
      `${result.mediaFiles} media files; keys: ${result.keys.join(', ') || 'none'}`,
  );
  if (config.storage.driver === 's3') console.log('STORAGE_DRIVER=s3: restore the bucket with the S3 tool (see docs/reliability.md)');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((err) => {
    console.error(`restore failed: ${(err as Error).message}`);
    process.exit(1);
  });
}
