import type Database from 'better-sqlite3';
import { notFound } from '../errors.js';

export interface JoinRequestRow {
  username: string;
  reason: string;
  createdAt: number;
}

/**
 * Accounts waiting for an operator in approval mode (users.join_state = 'pending'; they are
 * held with suspended_at too, so nothing of theirs shows anywhere). Approving clears both:
 * the account is a member from its next request. Rejecting keeps the row as 'rejected', so
 * the name stays taken and the same sign-in cannot ask again; its requests answer 403
 * account_rejected (plugins/auth.ts).
 */
export function createJoinRequestsRepository(sqlite: Database.Database) {
  const pending = sqlite.prepare<[], JoinRequestRow>(`
    SELECT username, coalesce(join_reason, '') AS reason, created_at AS createdAt FROM users
    WHERE join_state = 'pending' AND deleted_at IS NULL ORDER BY created_at, id LIMIT 500`);
  const approve = sqlite.prepare<[string]>(`
    UPDATE users SET join_state = NULL, suspended_at = NULL
    WHERE username = ? COLLATE NOCASE AND join_state = 'pending' AND deleted_at IS NULL`);
  const reject = sqlite.prepare<[string]>(`
    UPDATE users SET join_state = 'rejected'
    WHERE username = ? COLLATE NOCASE AND join_state = 'pending' AND deleted_at IS NULL`);
  const missing = () => notFound('Nobody by that name is waiting for approval.');
  return {
    list: (): JoinRequestRow[] => pending.all(),
    approve(username: string): void {
      if (approve.run(username).changes !== 1) throw missing();
    },
    reject(username: string): void {
      if (reject.run(username).changes !== 1) throw missing();
    },
  };
}

export type JoinRequestsRepository = ReturnType<typeof createJoinRequestsRepository>;
