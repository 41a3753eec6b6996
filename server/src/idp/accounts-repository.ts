import type Database from 'better-sqlite3';
import type { IdpAccount } from '../kernel/db/schema.js';
import { confusableSkeleton } from '../kernel/text.js';

/** SQL for the embedded provider's accounts (table idp_accounts). */
export function createAccountsRepository(sqlite: Database.Database) {
  const columns = 'id, username, email, password_hash AS passwordHash, created_at AS createdAt, is_first AS isFirst';
  const byId = sqlite.prepare<[string], IdpAccount>(`SELECT ${columns} FROM idp_accounts WHERE id = ?`);
  const byUsername = sqlite.prepare<[string], IdpAccount>(
    `SELECT ${columns} FROM idp_accounts WHERE username = ? COLLATE NOCASE`,
  );
  const byEmail = sqlite.prepare<[string], IdpAccount>(`SELECT ${columns} FROM idp_accounts WHERE email = ? COLLATE NOCASE`);
  const insert = sqlite.prepare<[string, string, string, string, number, string]>(
    // The first account on an empty server is its operator (README, "Operators"); decided inside the insert.
    `INSERT INTO idp_accounts (id, username, email, password_hash, created_at, username_skeleton, is_first)
     VALUES (?, ?, ?, ?, ?, ?, NOT EXISTS (SELECT 1 FROM idp_accounts))`,
  );
  const bySkeleton = sqlite.prepare<[string], { username: string }>('SELECT username FROM idp_accounts WHERE username_skeleton = ?');
  backfillSkeletons(sqlite);
  const remove = sqlite.prepare<[string]>('DELETE FROM idp_accounts WHERE id = ?');
  const setHash = sqlite.prepare<[string, string]>('UPDATE idp_accounts SET password_hash = ? WHERE id = ?');
  const removedUser = sqlite.prepare<[string], number>('SELECT 1 FROM users WHERE sub = ? AND deleted_at IS NOT NULL').pluck();

  return {
    findById: (id: string) => byId.get(id),
    findByUsername: (username: string) => byUsername.get(username),
    findByEmail: (email: string) => byEmail.get(email),
    /** An account whose name looks like this one (same confusable skeleton). */
    findLookalike: (username: string) => bySkeleton.get(confusableSkeleton(username)),
    /** Throws SQLITE_CONSTRAINT_UNIQUE when the name, its look or the e-mail is taken (case-insensitively). */
    insert(account: Omit<IdpAccount, 'usernameSkeleton' | 'isFirst'>) {
      insert.run(account.id, account.username, account.email, account.passwordHash, account.createdAt, confusableSkeleton(account.username));
    },
    delete: (id: string) => remove.run(id).changes > 0,
    setPasswordHash: (id: string, hash: string) => setHash.run(hash, id).changes > 0,
    /** True when the API's user of this account has been removed. */
    isRemoved: (id: string) => removedUser.get(id) !== undefined,
    /** Runs fn in one BEGIN IMMEDIATE transaction (check-then-insert stays atomic). */
    transaction: <T>(fn: () => T): T => sqlite.transaction(fn).immediate(),
  };
}

export type AccountsRepository = ReturnType<typeof createAccountsRepository>;

/**
 * Accounts made before skeletons were kept (migration 0007) get theirs. When
 * two old names already look alike, the later one keeps none: both go on
 * working, and no new name can look like the first.
 */
function backfillSkeletons(sqlite: Database.Database) {
  const missing = sqlite.prepare<[], { id: string; username: string }>(
    'SELECT id, username FROM idp_accounts WHERE username_skeleton IS NULL ORDER BY created_at',
  );
  const set = sqlite.prepare<[string, string]>('UPDATE OR IGNORE idp_accounts SET username_skeleton = ? WHERE id = ?');
  sqlite.transaction(() => {
    for (const row of missing.all()) set.run(confusableSkeleton(row.username), row.id);
  }).immediate();
}
