import type Database from 'better-sqlite3';
import type { IdpAccount } from '../db/schema.js';

/** SQL for the embedded provider's accounts (table idp_accounts). */
export function createAccountsRepository(sqlite: Database.Database) {
  const columns = 'id, username, email, password_hash AS passwordHash, created_at AS createdAt';
  const byId = sqlite.prepare<[string], IdpAccount>(`SELECT ${columns} FROM idp_accounts WHERE id = ?`);
  const byUsername = sqlite.prepare<[string], IdpAccount>(
    `SELECT ${columns} FROM idp_accounts WHERE username = ? COLLATE NOCASE`,
  );
  const byEmail = sqlite.prepare<[string], IdpAccount>(`SELECT ${columns} FROM idp_accounts WHERE email = ? COLLATE NOCASE`);
  const insert = sqlite.prepare<[string, string, string, string, number]>(
    'INSERT INTO idp_accounts (id, username, email, password_hash, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const remove = sqlite.prepare<[string]>('DELETE FROM idp_accounts WHERE id = ?');
  const removedUser = sqlite.prepare<[string], number>('SELECT 1 FROM users WHERE sub = ? AND deleted_at IS NOT NULL').pluck();

  return {
    findById: (id: string) => byId.get(id),
    findByUsername: (username: string) => byUsername.get(username),
    findByEmail: (email: string) => byEmail.get(email),
    /** Throws SQLITE_CONSTRAINT_UNIQUE when the name or e-mail is taken (case-insensitively). */
    insert(account: IdpAccount) {
      insert.run(account.id, account.username, account.email, account.passwordHash, account.createdAt);
    },
    delete: (id: string) => remove.run(id).changes > 0,
    /** True when the API's user of this account has been removed. */
    isRemoved: (id: string) => removedUser.get(id) !== undefined,
    /** Runs fn in one BEGIN IMMEDIATE transaction (check-then-insert stays atomic). */
    transaction: <T>(fn: () => T): T => sqlite.transaction(fn).immediate(),
  };
}

export type AccountsRepository = ReturnType<typeof createAccountsRepository>;
