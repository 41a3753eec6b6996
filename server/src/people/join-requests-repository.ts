import type Database from 'better-sqlite3';
import { notFound } from '../kernel/errors.js';
import { createModerationLog, type Operator } from '../kernel/moderation-log.js';

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
 * account_rejected (plugin.ts). The rows are people's, so their writes are here; the operator's
 * routes for them are registration's (registration/registration-admin-routes.ts). Each answer goes into the moderation log with the
 * operator who gave it, in the same transaction (moderation-repository.ts reads the log).
 */
export function createJoinRequestsRepository(sqlite: Database.Database) {
  const pending = sqlite.prepare<[], JoinRequestRow>(`
    SELECT username, coalesce(join_reason, '') AS reason, created_at AS createdAt FROM users
    WHERE join_state = 'pending' AND deleted_at IS NULL ORDER BY created_at, id LIMIT 500`);
  const approve = sqlite.prepare<[string], { id: number; username: string }>(`
    UPDATE users SET join_state = NULL, suspended_at = NULL
    WHERE username = ? COLLATE NOCASE AND join_state = 'pending' AND deleted_at IS NULL
    RETURNING id, username`);
  const reject = sqlite.prepare<[string], { id: number; username: string }>(`
    UPDATE users SET join_state = 'rejected'
    WHERE username = ? COLLATE NOCASE AND join_state = 'pending' AND deleted_at IS NULL
    RETURNING id, username`);
  const log = createModerationLog(sqlite);
  const missing = () => notFound('Nobody by that name is waiting for approval.');
  const answer = (statement: typeof approve, action: 'approve_join' | 'reject_join') =>
    sqlite.transaction((op: Operator, username: string) => {
      const person = statement.get(username);
      if (!person) throw missing();
      log(op, action, person.username, person.id, '');
    });
  const approveAndLog = answer(approve, 'approve_join');
  const rejectAndLog = answer(reject, 'reject_join');
  return {
    list: (): JoinRequestRow[] => pending.all(),
    approve: (op: Operator, username: string): void => approveAndLog.immediate(op, username),
    reject: (op: Operator, username: string): void => rejectAndLog.immediate(op, username),
  };
}

export type JoinRequestsRepository = ReturnType<typeof createJoinRequestsRepository>;
