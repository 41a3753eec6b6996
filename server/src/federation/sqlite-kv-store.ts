import { isDeepStrictEqual } from 'node:util';
import type Database from 'better-sqlite3';
import type { KvKey, KvStore, KvStoreListEntry, KvStoreSetOptions } from '@fedify/fedify';

/** How often a write also deletes the entries past their time (reads skip them in between). */
const SWEEP_EVERY_MS = 60_000;

export interface SqliteKvStoreOptions {
  /** The clock (ms): tests pass their own to see an entry expire without waiting. */
  now?: () => number;
}

/**
 * Fedify's key-value store on our one better-sqlite3 database (table federation_kv, migration 0030):
 * @fedify/sqlite wraps node:sqlite, a second driver on the same file. A key is stored as the JSON
 * of Fedify's key array, so the keys under a prefix `["a","b"]` are the range from `["a","b",` up
 * to `["a","b"-` (`-` follows `,`), plus the prefix itself. Values are JSON, as Fedify's other
 * stores keep them. better-sqlite3 is synchronous, so each call is one statement or one
 * transaction; nothing interleaves with another write.
 */
export function createSqliteKvStore(sqlite: Database.Database, options: SqliteKvStoreOptions = {}): KvStore {
  const now = options.now ?? Date.now;
  const read = sqlite.prepare<[string, number], { value: string }>(
    'SELECT value FROM federation_kv WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)',
  );
  const write = sqlite.prepare<[string, string, number | null]>(
    'INSERT INTO federation_kv (key, value, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
  );
  const remove = sqlite.prepare<[string]>('DELETE FROM federation_kv WHERE key = ?');
  const sweep = sqlite.prepare<[number]>('DELETE FROM federation_kv WHERE expires_at IS NOT NULL AND expires_at <= ?');
  const all = sqlite.prepare<[number], { key: string; value: string }>(
    'SELECT key, value FROM federation_kv WHERE expires_at IS NULL OR expires_at > ? ORDER BY key',
  );
  const under = sqlite.prepare<{ exact: string; from: string; to: string; now: number }, { key: string; value: string }>(`
    SELECT key, value FROM federation_kv
    WHERE (key = @exact OR (key >= @from AND key < @to)) AND (expires_at IS NULL OR expires_at > @now)
    ORDER BY key`);

  let sweptAt = 0;
  const sweepNow = () => {
    const at = now();
    if (at - sweptAt < SWEEP_EVERY_MS) return;
    sweptAt = at;
    sweep.run(at);
  };
  const encodeKey = (key: KvKey) => JSON.stringify(key);
  const expiresAt = (opts?: KvStoreSetOptions) => (opts?.ttl ? now() + opts.ttl.total('millisecond') : null);
  const current = (key: string): unknown => {
    const row = read.get(key, now());
    return row ? JSON.parse(row.value) : undefined;
  };
  const put = (key: string, value: unknown, opts?: KvStoreSetOptions) => {
    // undefined has no JSON: storing it is deleting (a get answers undefined either way).
    if (value === undefined) remove.run(key);
    else write.run(key, JSON.stringify(value), expiresAt(opts));
  };
  const compareAndSwap = sqlite.transaction((key: string, expected: unknown, next: unknown, opts?: KvStoreSetOptions) => {
    // Compared as stored: the expected value through the same JSON round trip as the current one.
    const wanted = expected === undefined ? undefined : (JSON.parse(JSON.stringify(expected)) as unknown);
    if (!isDeepStrictEqual(current(key), wanted)) return false;
    put(key, next, opts);
    return true;
  });

  return {
    async get<T = unknown>(key: KvKey) {
      return current(encodeKey(key)) as T | undefined;
    },
    async set(key, value, opts) {
      put(encodeKey(key), value, opts);
      sweepNow();
    },
    async delete(key) {
      remove.run(encodeKey(key));
    },
    async cas(key, expected, next, opts) {
      return compareAndSwap.immediate(encodeKey(key), expected, next, opts);
    },
    async *list(prefix?: KvKey): AsyncIterable<KvStoreListEntry> {
      let rows: Array<{ key: string; value: string }>;
      if (prefix === undefined || prefix.length === 0) rows = all.all(now());
      else {
        const exact = encodeKey(prefix);
        const open = exact.slice(0, -1);
        rows = under.all({ exact, from: `${open},`, to: `${open}-`, now: now() });
      }
      for (const row of rows) yield { key: JSON.parse(row.key) as KvKey, value: JSON.parse(row.value) as unknown };
    },
  };
}
