import type Database from 'better-sqlite3';

/**
 * Sign-up says when an e-mail is already registered (no e-mail is sent, so a
 * neutral answer would leave the person stuck). To keep that from serving as
 * an oracle for which addresses have accounts, each client address may be
 * told so at most `maxPerWindow` times per window; past that, every sign-up
 * from it waits, whatever the e-mail, so the refusal itself tells nothing new.
 * Counted in login_attempts (SQLite), checked and counted in one transaction.
 */
export interface SignUpGuardOptions {
  maxPerWindow?: number;
  windowMs?: number;
  now?: () => number;
}

export function createSignUpGuard(sqlite: Database.Database, options: SignUpGuardOptions = {}) {
  const max = options.maxPerWindow ?? 5;
  const windowMs = options.windowMs ?? 3_600_000;
  const now = options.now ?? Date.now;
  // A NUL cannot reach login-throttle's keys (the form's identifier is trimmed text) in this position.
  const keyOf = (address: string) => `\u0000sign-up: e-mail taken\n${address}`;
  const recent = sqlite.prepare<[string, number], number>('SELECT at FROM login_attempts WHERE key = ? AND at > ? ORDER BY at').pluck();
  const add = sqlite.prepare<[string, number]>('INSERT INTO login_attempts (key, at) VALUES (?, ?)');
  const forgetOld = sqlite.prepare<[string, number]>('DELETE FROM login_attempts WHERE key = ? AND at <= ?');

  const check = sqlite.transaction((address: string, emailTaken: () => boolean): number => {
    const at = now();
    const key = keyOf(address);
    forgetOld.run(key, at - windowMs);
    const times = recent.all(key, at - windowMs);
    if (times.length >= max) return Math.max(1, Math.ceil((times[times.length - max]! + windowMs - at) / 1000));
    if (emailTaken()) add.run(key, at);
    return 0;
  });

  return {
    /** 0 when this sign-up may go ahead (counting it if its e-mail is taken), else seconds to wait. */
    check: (address: string, emailTaken: () => boolean): number => check.immediate(address, emailTaken),
  };
}

export type SignUpGuard = ReturnType<typeof createSignUpGuard>;
