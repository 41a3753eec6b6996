import type Database from 'better-sqlite3';

/**
 * Limits password guesses for the embedded provider, in SQLite so a restart
 * does not forget them and every process shares them.
 *
 * Two limits, both keyed by the identifier as typed (a name and an e-mail are
 * counted apart, so a limit reached through one never tells which other
 * identifier belongs to the same account), and both the same whether or not an
 * account matches:
 * - per identifier and client address: `maxAttempts` per sliding `windowMs`.
 *   A guesser from one address uses up their own budget only, never the
 *   owner's at another address.
 * - per identifier over every address: a leaky bucket holding `accountBurst`
 *   attempts, drained at `accountPerHour`. A guesser spread over many addresses
 *   is slowed to that rate (a short wait, never a lock that outlasts it). One
 *   address on its own (at most maxAttempts per window) cannot fill it as long
 *   as accountPerHour is above that rate.
 *
 * An attempt is reserved (counted as a failure) in one IMMEDIATE transaction
 * before the password is hashed, so however many guesses arrive at once, at
 * most the limit are ever evaluated. A success clears the count of its own
 * address and takes its own attempt out of the ceiling.
 */
export interface LoginThrottleOptions {
  /** Attempts per identifier and address within windowMs. */
  maxAttempts?: number;
  windowMs?: number;
  /** Attempts per identifier over all addresses held at once… */
  accountBurst?: number;
  /** …and drained per hour. */
  accountPerHour?: number;
  now?: () => number;
}

export type Reservation = { ok: true } | { ok: false; retryAfterSeconds: number };

/** Forgotten rows are swept once per this many reservations. */
const SWEEP_EVERY = 500;

/** The identifier as it is counted: trimmed, NFC, lower case. */
export const throttleIdentifier = (identifier: string) => identifier.trim().normalize('NFC').toLowerCase();

export function createLoginThrottle(sqlite: Database.Database, options: LoginThrottleOptions = {}) {
  const maxAttempts = options.maxAttempts ?? 5;
  const windowMs = options.windowMs ?? 15 * 60_000;
  const burst = options.accountBurst ?? 30;
  const perHour = options.accountPerHour ?? 30;
  const now = options.now ?? Date.now;
  const drainPerMs = perHour / 3_600_000;

  const recent = sqlite.prepare<[string, number], number>('SELECT at FROM login_attempts WHERE key = ? AND at > ? ORDER BY at').pluck();
  const addAttempt = sqlite.prepare<[string, number]>('INSERT INTO login_attempts (key, at) VALUES (?, ?)');
  const forgetOld = sqlite.prepare<[string, number]>('DELETE FROM login_attempts WHERE key = ? AND at <= ?');
  const clearPair = sqlite.prepare<[string]>('DELETE FROM login_attempts WHERE key = ?');
  const bucket = sqlite.prepare<[string], { level: number; updatedAt: number }>(
    'SELECT level, updated_at AS updatedAt FROM login_buckets WHERE key = ?',
  );
  const setBucket = sqlite.prepare<[string, number, number]>(
    'INSERT INTO login_buckets (key, level, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET level = excluded.level, updated_at = excluded.updated_at',
  );
  const clearBucket = sqlite.prepare<[string]>('DELETE FROM login_buckets WHERE key = ?');
  const sweepAttempts = sqlite.prepare<[number]>('DELETE FROM login_attempts WHERE at <= ?');
  const sweepBuckets = sqlite.prepare<[number]>('DELETE FROM login_buckets WHERE updated_at <= ?');

  const pairKey = (id: string, address: string) => `${id}\n${address}`;
  let reservations = 0;

  const reserve = sqlite.transaction((identifier: string, address: string): Reservation => {
    const at = now();
    const id = throttleIdentifier(identifier);
    const pair = pairKey(id, address);
    const since = at - windowMs;
    forgetOld.run(pair, since);
    const times = recent.all(pair, since);
    if (times.length >= maxAttempts) {
      const oldest = times[times.length - maxAttempts]!;
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + windowMs - at) / 1000)) };
    }
    const held = bucket.get(id);
    const level = held ? Math.max(0, held.level - (at - held.updatedAt) * drainPerMs) : 0;
    if (level + 1 > burst) {
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((level + 1 - burst) / drainPerMs / 1000)) };
    }
    addAttempt.run(pair, at);
    setBucket.run(id, level + 1, at);
    if (++reservations % SWEEP_EVERY === 0) {
      sweepAttempts.run(since);
      // A bucket this old has drained to empty.
      sweepBuckets.run(at - Math.ceil(burst / drainPerMs));
    }
    return { ok: true };
  });

  // NIST SP 800-63B 5.2.2: after a success, disregard the failures "from the same IP address";
  // the ceiling over all addresses keeps the others (only this attempt's own reservation goes).
  const succeeded = sqlite.transaction((identifier: string, address: string) => {
    const at = now();
    const id = throttleIdentifier(identifier);
    clearPair.run(pairKey(id, address));
    const held = bucket.get(id);
    if (!held) return;
    const level = Math.max(0, held.level - (at - held.updatedAt) * drainPerMs) - 1;
    if (level > 0) setBucket.run(id, level, at);
    else clearBucket.run(id);
  });

  return {
    /**
     * Counts an attempt for this identifier from this address before its
     * password is checked, or says how long to wait when a limit is reached.
     */
    reserve: (identifier: string, address: string): Reservation => reserve.immediate(identifier, address),
    /** The password was right: this address's count starts again, and this attempt leaves the ceiling. */
    succeeded: (identifier: string, address: string) => succeeded.immediate(identifier, address),
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
