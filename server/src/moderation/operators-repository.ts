import type Database from 'better-sqlite3';
import { isAdminUsername } from '../kernel/auth/operators.js';
import type { AuthConfig } from '../kernel/config.js';

export type GrantReason = 'first_account' | 'admin_usernames';

export interface OperatorRow {
  username: string;
  reason: GrantReason;
  createdAt: number;
}

/**
 * Operator rights with the embedded provider belong to an account, not to a name
 * (table operator_grants). The grant is recorded the first time the account is seen
 * as an operator (signing up or in, or its first request after ADMIN_USERNAMES lists
 * its name): the server's first account, or the account holding a listed name then.
 * Each name is granted once: a newcomer who takes the name of a removed operator gets
 * nothing, whatever ADMIN_USERNAMES says. A listed grant is in effect while its name
 * stays in ADMIN_USERNAMES, so taking a name off the list takes the rights away.
 */
export function createOperatorsRepository(sqlite: Database.Database, auth: AuthConfig) {
  const state = sqlite.prepare<[number], {
    username: string;
    deletedAt: number | null;
    reason: GrantReason | null;
    name: string | null;
    isFirst: number | null;
  }>(`
    SELECT u.username, u.deleted_at AS deletedAt, g.reason, g.name, a.is_first AS isFirst
    FROM users u LEFT JOIN operator_grants g ON g.user_id = u.id LEFT JOIN idp_accounts a ON a.id = u.sub
    WHERE u.id = ?`);
  const firstGranted = sqlite.prepare<[], number>(`SELECT 1 FROM operator_grants WHERE reason = 'first_account'`).pluck();
  const nameGranted = sqlite.prepare<[string], number>('SELECT 1 FROM operator_grants WHERE name = ? COLLATE NOCASE').pluck();
  const insert = sqlite.prepare<[number, string, GrantReason, number]>(
    'INSERT INTO operator_grants (user_id, name, reason, created_at) VALUES (?, ?, ?, ?)',
  );
  const granted = sqlite.prepare<[], OperatorRow & { name: string }>(`
    SELECT u.username, g.reason, g.created_at AS createdAt, g.name
    FROM operator_grants g JOIN users u ON u.id = g.user_id
    WHERE u.deleted_at IS NULL
    ORDER BY g.created_at, g.user_id`);

  const inEffect = (reason: GrantReason, name: string) => reason === 'first_account' || isAdminUsername(auth, name);

  // Checked again inside the write: two accounts seen at once cannot both get one name.
  const grant = sqlite.transaction((userId: number): boolean => {
    const s = state.get(userId);
    if (!s || s.deletedAt !== null) return false;
    if (s.reason !== null && s.name !== null) return inEffect(s.reason, s.name);
    // The name's grant goes with the first account too, so that name is never granted again.
    const name = s.username.toLowerCase();
    if (nameGranted.get(name) !== undefined) return false;
    if (s.isFirst === 1 && firstGranted.get() === undefined) {
      insert.run(userId, name, 'first_account', Date.now());
      return true;
    }
    if (isAdminUsername(auth, s.username)) {
      insert.run(userId, name, 'admin_usernames', Date.now());
      return true;
    }
    return false;
  });

  return {
    /** Whether the (embedded provider's) user is an operator now; records the grant the first time. */
    isOperator(userId: number): boolean {
      const s = state.get(userId);
      if (!s || s.deletedAt !== null) return false;
      if (s.reason !== null && s.name !== null) return inEffect(s.reason, s.name);
      // Nothing to record for nearly everyone: only a first account or a listed name opens a write.
      if (s.isFirst !== 1 && !isAdminUsername(auth, s.username)) return false;
      return grant.immediate(userId);
    },
    /** The live accounts whose grant is in effect, oldest grant first (the operator page). */
    list(): OperatorRow[] {
      return granted.all().filter((g) => inEffect(g.reason, g.name)).map(({ name: _name, ...row }) => row);
    },
  };
}

export type OperatorsRepository = ReturnType<typeof createOperatorsRepository>;
