import type Database from 'better-sqlite3';
import { HttpError, unauthorized } from './errors.js';

/** 403 for a suspended account (people/auth-plugin.ts answers it before any route; a write checks again). */
export const accountSuspended = () =>
  new HttpError(403, 'account_suspended', 'An operator has suspended your account. GET /api/me says why.');

export const accountGone = () => unauthorized('This account no longer exists.');

/**
 * The check every write makes inside its own transaction: its caller still exists and is
 * not suspended. Authentication happened when the request arrived; an account removed
 * (DELETE /api/account, npm run user:remove) or suspended while the request waited for
 * an image, a storage write or the write batch must not write anything after that. One
 * read of the users row by primary key (a few µs); throws 401 for a removed account, 403
 * for a suspended one, so the transaction rolls back.
 */
export function createLiveUserCheck(sqlite: Database.Database) {
  const state = sqlite.prepare<[number], { deletedAt: number | null; suspendedAt: number | null }>(
    'SELECT deleted_at AS deletedAt, suspended_at AS suspendedAt FROM users WHERE id = ?',
  );
  return {
    /** Throws unless `userId` is a live, unsuspended account. */
    assert(userId: number): void {
      const row = state.get(userId);
      if (!row || row.deletedAt !== null) throw accountGone();
      if (row.suspendedAt !== null) throw accountSuspended();
    },
    /** Whether the account still exists (suspended or not). */
    exists(userId: number): boolean {
      const row = state.get(userId);
      return row !== undefined && row.deletedAt === null;
    },
  };
}

export type LiveUserCheck = ReturnType<typeof createLiveUserCheck>;
