import type Database from 'better-sqlite3';

export interface AuthUser {
  id: number;
  sub: string;
  username: string;
  email: string | null;
}

interface UserRow extends AuthUser {
  deletedAt: number | null;
}

/**
 * Upserts API users from verified token claims. Prepared once; called on every
 * authenticated request, so the common case (known user, same claims) is one
 * indexed read.
 */
export function createUsersRepository(sqlite: Database.Database) {
  const bySub = sqlite.prepare<[string], UserRow>(
    'SELECT id, sub, username, email, deleted_at AS deletedAt FROM users WHERE sub = ?',
  );
  const nameTaken = sqlite.prepare<[string, string], { id: number }>(
    'SELECT id FROM users WHERE username = ? COLLATE NOCASE AND sub <> ?',
  );
  const insert = sqlite.prepare<[string, string, string | null, number], { id: number }>(
    'INSERT INTO users (sub, username, email, created_at) VALUES (?, ?, ?, ?) RETURNING id',
  );
  const update = sqlite.prepare<[string, string | null, number]>('UPDATE users SET username = ?, email = ? WHERE id = ?');

  /** A name nobody else uses: the wanted one, or it with the lowest free numeric suffix. */
  function freeUsername(wanted: string, sub: string): string {
    if (!nameTaken.get(wanted, sub)) return wanted;
    for (let i = 2; ; i++) {
      const candidate = `${wanted.slice(0, 60)}${i}`;
      if (!nameTaken.get(candidate, sub)) return candidate;
    }
  }

  const upsert = sqlite.transaction((sub: string, username: string, email: string | null): UserRow => {
    const existing = bySub.get(sub);
    if (!existing) {
      const name = freeUsername(username, sub);
      const { id } = insert.get(sub, name, email, Date.now())!;
      return { id, sub, username: name, email, deletedAt: null };
    }
    if (existing.deletedAt !== null) return existing;
    if (existing.username !== username || existing.email !== email) {
      const name = existing.username.toLowerCase() === username.toLowerCase() ? username : freeUsername(username, sub);
      update.run(name, email, existing.id);
      return { ...existing, username: name, email };
    }
    return existing;
  });

  return {
    findBySub: (sub: string) => bySub.get(sub),
    /**
     * Returns the user for these claims, creating or renaming as needed;
     * `null` when the account was deleted.
     */
    upsertFromClaims(sub: string, username: string, email: string | null): AuthUser | null {
      const known = bySub.get(sub);
      if (known && known.username === username && known.email === email) {
        return known.deletedAt === null ? { id: known.id, sub, username, email } : null;
      }
      // Claim changes are rare; the IMMEDIATE transaction keeps the name check and write together.
      const row = upsert.immediate(sub, username, email);
      return row.deletedAt === null ? { id: row.id, sub: row.sub, username: row.username, email: row.email } : null;
    },
  };
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;
