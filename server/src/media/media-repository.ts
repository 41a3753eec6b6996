import type Database from 'better-sqlite3';
import type { Shared } from '../kernel/shared.js';
import { limitBy } from '../kernel/db/rows.js';

export type UploadStatus = 'pending' | 'uploaded' | 'used';

export interface UploadRow {
  key: string;
  userId: number;
  contentType: string;
  isProfilePicture: number;
  status: UploadStatus;
  size: number | null;
  createdAt: number;
  expiresAt: number;
}

/**
 * Uploads: presigned, received, claimed by a post (posts/post-writes-repository.ts writes the
 * post itself), released, swept. Every change is one IMMEDIATE transaction that first checks
 * the owner is live (kernel/live-user.ts).
 */
export function createMediaRepository(sqlite: Database.Database, { live }: Shared) {
  const insertUploadStmt = sqlite.prepare<[string, number, string, number, number, number]>(
    `INSERT INTO uploads (key, user_id, content_type, is_profile_picture, status, created_at, expires_at)
     VALUES (?, ?, ?, ?, 'pending', ?, ?)`,
  );
  const uploadByKey = sqlite.prepare<[string], UploadRow>(
    `SELECT key, user_id AS userId, content_type AS contentType, is_profile_picture AS isProfilePicture,
            status, size, created_at AS createdAt, expires_at AS expiresAt
     FROM uploads WHERE key = ?`,
  );
  const markUploadedStmt = sqlite.prepare<[number, string]>(
    `UPDATE uploads SET status = 'uploaded', size = ? WHERE key = ? AND status = 'pending'`,
  );
  const claimStmt = sqlite.prepare<[string, number]>(
    `UPDATE uploads SET status = 'used' WHERE key = ? AND user_id = ? AND status = 'uploaded'`,
  );
  const releaseStmt = sqlite.prepare<[string]>(`UPDATE uploads SET status = 'uploaded' WHERE key = ? AND status = 'used'`);
  const deleteUploadStmt = sqlite.prepare<[string]>('DELETE FROM uploads WHERE key = ?');
  const deleteUploadIfStmt = sqlite.prepare<[string, string, number]>(
    'DELETE FROM uploads WHERE key = ? AND status = ? AND created_at = ?',
  );
  const staleUploadsStmt = sqlite.prepare<[number, number], UploadRow>(
    `SELECT key, user_id AS userId, content_type AS contentType, is_profile_picture AS isProfilePicture,
            status, size, created_at AS createdAt, expires_at AS expiresAt
     FROM uploads WHERE status IN ('pending', 'uploaded', 'used') AND created_at < ? ORDER BY created_at ${limitBy('?')}`,
  );
  const uploadExists = sqlite.prepare<[string], { one: number }>('SELECT 1 AS one FROM uploads WHERE key = ?');

  // What the user's quota counts: their posts' images and raw uploads waiting to become posts.
  const storageUsedStmt = sqlite.prepare<[number, number], number>(
    `SELECT (SELECT coalesce(sum(stored_bytes), 0) FROM posts WHERE user_id = ?)
          + (SELECT coalesce(sum(size), 0) FROM uploads WHERE user_id = ? AND status = 'uploaded')`,
  ).pluck();
  const insertUpload = sqlite.transaction(
    (key: string, userId: number, contentType: string, isProfilePicture: boolean, now: number, expiresAt: number) => {
      live.assert(userId);
      insertUploadStmt.run(key, userId, contentType, isProfilePicture ? 1 : 0, now, expiresAt);
    },
  );
  /** pending → uploaded, for a live owner: 'gone' when the row is (its account removed, or swept). */
  const markUploaded = sqlite.transaction((key: string, size: number): 'ok' | 'gone' | 'not_pending' => {
    const row = uploadByKey.get(key);
    if (!row) return 'gone';
    live.assert(row.userId);
    return markUploadedStmt.run(size, key).changes === 1 ? 'ok' : 'not_pending';
  });
  const claim = sqlite.transaction((key: string, userId: number): boolean => {
    live.assert(userId);
    return claimStmt.run(key, userId).changes === 1;
  });
  return {
    /** Throws 401 or 403 (kernel/live-user.ts) unless the user is live and not suspended. */
    insertUpload(key: string, userId: number, contentType: string, isProfilePicture: boolean, now: number, expiresAt: number) {
      insertUpload.immediate(key, userId, contentType, isProfilePicture, now, expiresAt);
    },
    findUpload: (key: string) => uploadByKey.get(key),
    /** pending → uploaded; 'gone' when the row is gone, 'not_pending' when it was already received; 403 for a suspended owner. */
    markUploaded: (key: string, size: number) => markUploaded.immediate(key, size),
    /** uploaded → used, for its live owner only; false when someone else got there first. */
    claimUpload: (key: string, userId: number) => claim.immediate(key, userId),
    /** used → uploaded, when making the post failed on our side so the user can retry. */
    releaseUpload: (key: string) => void releaseStmt.run(key),
    deleteUpload: (key: string) => void deleteUploadStmt.run(key),
    /** Removes a row only if it is still what the sweep saw. */
    deleteUploadIfUnchanged: (row: UploadRow) => deleteUploadIfStmt.run(row.key, row.status, row.createdAt).changes === 1,
    staleUploads: (before: number, limit = 500) => staleUploadsStmt.all(before, limit),
    hasUpload: (key: string) => uploadExists.get(key) !== undefined,

    /** Whether the account still exists (removal may run while an image is processed). */
    userExists: (userId: number) => live.exists(userId),
    /** Bytes the user's images and waiting uploads take in storage. */
    storageUsed: (userId: number) => storageUsedStmt.get(userId, userId) ?? 0,
  };
}

export type MediaRepository = ReturnType<typeof createMediaRepository>;
