import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { chmod, mkdir, open, opendir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Config } from '../config.js';
import type { Storage } from './storage.js';

/** Keys are made by the server; this refuses anything that could leave the root anyway. */
const KEY = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;
const TMP_DIR = '.tmp';

export type PutCheck = 'ok' | 'expired' | 'invalid';

/**
 * The local driver also signs the upload URLs the server itself accepts
 * (PUT /uploads/...), so it can check them.
 */
export interface LocalStorage extends Storage {
  readonly driver: 'local';
  readonly root: string;
  /** Checks a presigned upload URL's query for this key (constant-time signature compare). */
  verifyPut(key: string, contentType: string, exp: string, sig: string, nowMs?: number): PutCheck;
}

export const isLocalStorage = (storage: Storage): storage is LocalStorage =>
  storage.driver === 'local' && typeof (storage as LocalStorage).verifyPut === 'function';

/**
 * The upload-URL secret: 32 random bytes generated on first start into
 * DATA_DIR/keys (mode 0600), so URLs stay valid across restarts and cannot be
 * forged by anyone without the file.
 */
async function loadOrCreateUploadSecret(dataDir: string): Promise<Buffer> {
  const dir = join(dataDir, 'keys');
  const file = join(dir, 'upload-url-secret');
  if (!existsSync(file)) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
    await writeFile(tmp, randomBytes(32).toString('base64url'), { mode: 0o600 });
    await rename(tmp, file); // atomic: two servers starting at once agree on one secret
  }
  await chmod(file, 0o600);
  const secret = Buffer.from((await readFile(file, 'utf8')).trim(), 'base64url');
  if (secret.length < 32) throw new Error(`${file} is damaged: remove it to generate a new one`);
  return secret;
}

function checkKey(key: string): string {
  if (!KEY.test(key) || key.split('/').some((part) => part === '.' || part === '..') || key.length > 512) {
    throw new Error(`invalid storage key: ${JSON.stringify(key)}`);
  }
  return key;
}

/** Files under DATA_DIR/storage, one per key; writes land in a temp file and are renamed into place. */
export async function createLocalStorage(config: Config): Promise<LocalStorage> {
  const root = config.storage.localDir;
  const tmpDir = join(root, TMP_DIR);
  await mkdir(tmpDir, { recursive: true });
  const secret = await loadOrCreateUploadSecret(config.dataDir);
  await removeStaleTemps(tmpDir, Date.now() - 3600_000);

  const pathOf = (key: string) => join(root, ...checkKey(key).split('/'));
  const sign = (key: string, contentType: string, exp: number) =>
    createHmac('sha256', secret).update(`${key}\n${contentType.toLowerCase()}\n${exp}`).digest();

  return {
    driver: 'local',
    root,

    async presignPut(key, contentType, expiresInSeconds) {
      checkKey(key);
      // Rounded up to the second: the link is good for at least the time promised (rounded down, a
      // 1-second link signed at x.9 s lasted 0.1 s).
      const exp = Math.ceil(Date.now() / 1000 + expiresInSeconds);
      const query = new URLSearchParams({
        ct: contentType.toLowerCase(),
        exp: String(exp),
        sig: sign(key, contentType, exp).toString('base64url'),
      });
      return `${config.publicUrl}/${key}?${query}`;
    },

    verifyPut(key, contentType, exp, sig, nowMs = Date.now()) {
      if (!/^\d{1,12}$/.test(exp) || !/^[A-Za-z0-9_-]{43}$/.test(sig)) return 'invalid';
      const expected = sign(key, contentType, Number(exp));
      const given = Buffer.from(sig, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
      return Number(exp) * 1000 < nowMs ? 'expired' : 'ok';
    },

    async stat(key) {
      try {
        const s = await stat(pathOf(key));
        return s.isFile() ? { size: s.size } : null;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },

    async read(key) {
      // Opening first makes a missing key reject here rather than as a later stream error.
      const handle = await open(pathOf(key), 'r');
      return handle.createReadStream();
    },

    async write(key, body) {
      const target = pathOf(key);
      const tmp = join(tmpDir, randomUUID());
      try {
        await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, createWriteStream(tmp, { mode: 0o600 }));
        await mkdir(dirname(target), { recursive: true });
        await rename(tmp, target);
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
    },

    async delete(key) {
      const path = pathOf(key);
      await rm(path, { force: true });
      // Drop folders left empty (one per media key / uploader), never the root.
      let dir = dirname(path);
      while (dir.startsWith(root + '/') && dir !== root) {
        try {
          await rmdir(dir); // fails (and stops) when not empty
        } catch {
          break;
        }
        dir = dirname(dir);
      }
    },

    async *list(prefix) {
      const base = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
      if (base) checkKey(base);
      yield* walk(base ? join(root, ...base.split('/')) : root, base, prefix);
    },

    async ping() {
      await stat(root);
      const probe = join(tmpDir, `ping-${randomUUID()}`);
      await writeFile(probe, '');
      await rm(probe, { force: true });
    },
  };
}

async function* walk(dir: string, keyPrefix: string, wanted: string): AsyncGenerator<{ key: string; lastModified: Date }> {
  let handle;
  try {
    handle = await opendir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  for await (const entry of handle) {
    if (!keyPrefix && entry.name === TMP_DIR) continue;
    const key = keyPrefix ? `${keyPrefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (key.startsWith(wanted) || wanted.startsWith(`${key}/`)) yield* walk(join(dir, entry.name), key, wanted);
    } else if (entry.isFile() && key.startsWith(wanted)) {
      try {
        yield { key, lastModified: (await stat(join(dir, entry.name))).mtime };
      } catch {
        // Removed while listing.
      }
    }
  }
}

/** Temp files of writes that never finished (a crash mid-upload). */
async function removeStaleTemps(tmpDir: string, olderThanMs: number) {
  for await (const entry of await opendir(tmpDir)) {
    const path = join(tmpDir, entry.name);
    try {
      if ((await stat(path)).mtimeMs < olderThanMs) await rm(path, { force: true });
    } catch {
      // Already gone.
    }
  }
}
