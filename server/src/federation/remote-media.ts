import type Database from 'better-sqlite3';
import { allMediaKeys, displayKey, mediumKey, thumbKey } from '../kernel/storage/media-keys.js';
import type { Storage } from '../kernel/storage/storage.js';
import { createModerationLog, type Operator } from '../kernel/moderation-log.js';

const DAY_MS = 24 * 3_600_000;
/** Rows dropped per statement by the retention sweep and the cap: a big drop does not hold the writer long. */
const DROP_BATCH = 200;
/** The most the operator may set: 1 PiB, far past any disk, and still an exact integer. */
export const REMOTE_MEDIA_CAP_MAX = 2 ** 50;
export const REMOTE_MEDIA_RETENTION_MAX_DAYS = 3650;

export interface RemoteMediaSettings {
  /** Bytes the renditions of remote photos and pictures may take; 0: no cap. */
  capBytes: number;
  /** Days they are kept before they are dropped, to be fetched again on view; 0: kept. */
  retentionDays: number;
}

export interface RemoteMediaUse extends RemoteMediaSettings {
  /** Bytes stored now, and how many photos they are. */
  storedBytes: number;
  stored: number;
  /** Photos whose renditions were dropped: fetched again when someone views them. */
  dropped: number;
}

/** One photo as stored for a post of another server (posts/post-writes-service.ts, createFromAnotherServer). */
export interface StoredRemotePhoto {
  mediaKey: string;
  url: string;
  bytes: number;
}

export interface RemoteMediaDeps {
  storage: Storage;
  /** The original fetched again, through the same guarded fetch as the first time (remote-posts.ts, fetchImage). */
  fetchOriginal(url: URL): Promise<Buffer | null>;
  /** Our pipeline's renditions of it (media/images/pipeline.ts), metadata stripped. */
  process(bytes: Buffer): Promise<{ display: Buffer; thumb: Buffer; medium: Buffer | null }>;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  now?: () => number;
}

/**
 * Remote media, bounded (issue 50, item 5): the renditions made of other servers' photos and
 * profile pictures count against a cap the operator sets (instance_settings.remote_media_cap_bytes),
 * and are dropped after a retention period (remote_media_retention_days; GoToSocial's 30 days).
 * Past the cap the oldest stored go first; a dropped photo keeps its post and its row in
 * remote_media (migration 0040), with the address it came from, and is fetched again when someone
 * views it (media/media-routes.ts asks `missing`), a placeholder shown meanwhile. Local uploads
 * are never in remote_media, so they never count, and nothing here is ever dropped of theirs.
 */
export function createRemoteMedia(sqlite: Database.Database, deps: RemoteMediaDeps) {
  const now = deps.now ?? Date.now;
  const { storage, log } = deps;
  const readSettings = sqlite.prepare<[], RemoteMediaSettings>(
    'SELECT remote_media_cap_bytes AS capBytes, remote_media_retention_days AS retentionDays FROM instance_settings WHERE id = 1',
  );
  const writeSettings = sqlite.prepare<[number, number, number]>(
    'UPDATE instance_settings SET remote_media_cap_bytes = ?, remote_media_retention_days = ?, updated_at = ? WHERE id = 1',
  );
  const insert = sqlite.prepare<[string, number, string, number, number]>(
    'INSERT OR REPLACE INTO remote_media (media_key, post_id, url, bytes, stored_at) VALUES (?, ?, ?, ?, ?)',
  );
  const totals = sqlite.prepare<[], { storedBytes: number; stored: number; dropped: number }>(`
    SELECT coalesce(sum(bytes), 0) AS storedBytes, count(stored_at) AS stored, count(*) - count(stored_at) AS dropped FROM remote_media`);
  const storedBytes = sqlite.prepare<[], number>('SELECT coalesce(sum(bytes), 0) FROM remote_media WHERE stored_at IS NOT NULL').pluck();
  const oldest = sqlite.prepare<[string, number], { mediaKey: string; bytes: number }>(`
    SELECT media_key AS mediaKey, bytes FROM remote_media WHERE stored_at IS NOT NULL AND media_key != ?
    ORDER BY stored_at, media_key LIMIT ?`);
  const expired = sqlite.prepare<[number, number], string>(
    'SELECT media_key FROM remote_media WHERE stored_at IS NOT NULL AND stored_at < ? ORDER BY stored_at LIMIT ?',
  ).pluck();
  const markDropped = sqlite.prepare<[string]>('UPDATE remote_media SET bytes = 0, stored_at = NULL WHERE media_key = ? AND stored_at IS NOT NULL');
  const droppedRow = sqlite.prepare<[string], string>('SELECT url FROM remote_media WHERE media_key = ? AND stored_at IS NULL').pluck();
  const moderationLog = createModerationLog(sqlite);
  const saveSettings = sqlite.transaction((next: RemoteMediaSettings, op: Operator) => {
    writeSettings.run(next.capBytes, next.retentionDays, now());
    const cap = next.capBytes === 0 ? 'no cap' : `a cap of ${next.capBytes} bytes`;
    moderationLog(op, 'change_remote_media', `${cap}, ${next.retentionDays === 0 ? 'kept' : `kept ${next.retentionDays} days`}`, null, '');
  });
  const markStored = sqlite.prepare<[number, number, string]>('UPDATE remote_media SET bytes = ?, stored_at = ? WHERE media_key = ? AND stored_at IS NULL');

  /** Its renditions removed, after its row says so (a viewer then gets the placeholder and a refetch, never a 404). */
  async function drop(mediaKey: string): Promise<boolean> {
    if (markDropped.run(mediaKey).changes === 0) return false;
    for (const key of allMediaKeys(mediaKey)) {
      try {
        await storage.delete(key);
      } catch (err) {
        log.warn({ key, err: (err as Error).message }, 'remote media: a dropped rendition could not be removed');
      }
    }
    return true;
  }

  /**
   * The oldest stored first until the total is within the cap; `keep` (the photo just stored)
   * last of all, so a photo alone larger than the cap is not kept either.
   */
  async function enforceCap(keep = ''): Promise<number> {
    const { capBytes } = readSettings.get()!;
    if (capBytes <= 0) return 0;
    let dropped = 0;
    let total = storedBytes.get() ?? 0;
    while (total > capBytes) {
      const batch = oldest.all(keep, DROP_BATCH);
      if (batch.length === 0) {
        if (keep !== '' && (await drop(keep))) dropped++;
        break;
      }
      for (const row of batch) {
        if (total <= capBytes) break;
        if (await drop(row.mediaKey)) {
          dropped++;
          total -= row.bytes;
        }
      }
      total = storedBytes.get() ?? 0;
    }
    return dropped;
  }

  const refetching = new Map<string, Promise<boolean>>();

  /** A dropped photo fetched and made again, under the same key (its post's URLs stay); false when it could not be. */
  async function refetch(mediaKey: string, url: string): Promise<boolean> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    const original = await deps.fetchOriginal(parsed);
    if (!original) return false;
    const made = await deps.process(original);
    const bytes = made.display.length + made.thumb.length + (made.medium?.length ?? 0);
    const { capBytes } = readSettings.get()!;
    if (capBytes > 0 && bytes > capBytes) return false;
    const written: string[] = [];
    try {
      for (const [key, data] of [
        [displayKey(mediaKey), made.display],
        [thumbKey(mediaKey), made.thumb],
        ...(made.medium ? [[mediumKey(mediaKey), made.medium] as const] : []),
      ] as const) {
        written.push(key);
        await storage.write(key, data, 'image/webp');
      }
    } catch (err) {
      // A full disk, or storage away: the photo stays dropped, and nothing half-written stays.
      for (const key of written) await storage.delete(key).catch(() => {});
      throw err;
    }
    // Its post deleted meanwhile: the row went with it, and so do the renditions.
    if (markStored.run(bytes, now(), mediaKey).changes === 0) {
      for (const key of written) await storage.delete(key).catch(() => {});
      return false;
    }
    await enforceCap(mediaKey);
    return true;
  }

  return {
    settings: (): RemoteMediaSettings => readSettings.get()!,
    /**
     * The operator's change, in the moderation log, then applied at once: a lower cap or a
     * shorter retention drops what is past it now.
     */
    async setSettings(next: RemoteMediaSettings, op: Operator): Promise<RemoteMediaUse> {
      saveSettings.immediate(next, op);
      await enforceCap();
      await sweep();
      return { ...readSettings.get()!, ...totals.get()! };
    },
    use: (): RemoteMediaUse => ({ ...readSettings.get()!, ...totals.get()! }),
    /** In the post's insert transaction: its photos, stored now, with the addresses they came from. */
    record(postId: number, photos: readonly StoredRemotePhoto[]): void {
      const at = now();
      for (const photo of photos) insert.run(photo.mediaKey, postId, photo.url, photo.bytes, at);
    },
    /** After a remote post or picture was stored: the cap applied (its own photos go last). */
    afterStored: (keep?: string) => enforceCap(keep),
    enforceCap,
    /** Drops every rendition stored longer than the retention period; how many. */
    sweep,
    /**
     * A viewer asked for a rendition that is not stored (media/media-routes.ts): when it is a
     * dropped remote photo, its refetch starts (once, however many ask) and true is answered, for
     * the placeholder; false for anything else (a 404 as before). Never throws: a failed refetch
     * is logged, and the photo is asked for again on the next view.
     */
    missing(mediaKey: string): boolean {
      const url = droppedRow.get(mediaKey);
      if (url === undefined) return false;
      if (!refetching.has(mediaKey)) {
        const job = refetch(mediaKey, url)
          .catch((err: unknown) => {
            log.warn({ mediaKey, err: (err as Error).message }, 'remote media: a photo could not be fetched again');
            return false;
          })
          .finally(() => refetching.delete(mediaKey));
        refetching.set(mediaKey, job);
      }
      return true;
    },
    /** The refetch under way for a photo, if any (tests wait for it). */
    refetching: (mediaKey: string): Promise<boolean> | undefined => refetching.get(mediaKey),
  };

  async function sweep(): Promise<number> {
    const { retentionDays } = readSettings.get()!;
    if (retentionDays <= 0) return 0;
    const before = now() - retentionDays * DAY_MS;
    let dropped = 0;
    for (;;) {
      const keys = expired.all(before, DROP_BATCH);
      for (const key of keys) if (await drop(key)) dropped++;
      if (keys.length < DROP_BATCH) return dropped;
    }
  }
}

export type RemoteMedia = ReturnType<typeof createRemoteMedia>;
