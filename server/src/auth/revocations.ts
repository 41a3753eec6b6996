import type Database from 'better-sqlite3';
import { LruMap } from '../lru.js';
import { TokenError, type TokenClaims, type VerifyToken } from './verify.js';

/**
 * Tokens ended before their expiry: logout records the token's `jti` until its
 * `exp`, and every verification refuses a recorded one. In SQLite, so every
 * process sees a logout; expired rows are swept on each revocation.
 *
 * A logout in this process is refused at once (kept in memory too). For logouts
 * in other processes, the table is asked at most once per token per
 * `recheckMs`: asking on every request cost about 10 µs of a 50 µs API request
 * (measured with autocannon on GET /api/like), so another process's logout takes
 * effect within a second.
 */
export function createRevocations(sqlite: Database.Database, now: () => number = Date.now, recheckMs = 1_000) {
  const find = sqlite.prepare<[string], number>('SELECT 1 FROM revoked_tokens WHERE jti = ?').pluck();
  const insert = sqlite.prepare<[string, number]>('INSERT INTO revoked_tokens (jti, expires_at) VALUES (?, ?) ON CONFLICT DO NOTHING');
  const sweep = sqlite.prepare<[number]>('DELETE FROM revoked_tokens WHERE expires_at <= ?');
  const findCutoff = sqlite.prepare<[string], { before: number; keepJti: string | null }>(
    'SELECT before, keep_jti AS keepJti FROM session_cutoffs WHERE sub = ?',
  );
  const setCutoff = sqlite.prepare<[string, number, string | null]>(
    'INSERT INTO session_cutoffs (sub, before, keep_jti) VALUES (?, ?, ?) ON CONFLICT (sub) DO UPDATE SET before = excluded.before, keep_jti = excluded.keep_jti',
  );
  /** sub → its cutoff (before 0: none) and when the table was last asked; like `checked`, asked at most once per recheckMs. */
  const cutoffs = new LruMap<string, { before: number; keepJti: string | null; at: number }>(10_000);
  /** jti → when the table last said it was not revoked; bounded like the token cache. */
  const checked = new LruMap<string, number>(10_000);
  const revokedHere = new LruMap<string, true>(10_000);
  return {
    /** Ends the token these claims came from; false when it cannot be named (no jti or exp). */
    revoke(claims: TokenClaims): boolean {
      if (typeof claims.jti !== 'string' || claims.jti === '' || typeof claims.exp !== 'number') return false;
      const at = now();
      sweep.run(at);
      if (claims.exp * 1000 > at) insert.run(claims.jti, claims.exp * 1000);
      revokedHere.set(claims.jti, true);
      checked.delete(claims.jti);
      return true;
    },
    /**
     * Ends every token of this account issued up to `at` (a password change or reset),
     * except `keepJti`: the new token of the session that made the change. Tokens carry
     * their issue time in whole seconds, so the whole second of the change counts.
     */
    endAllSessions(sub: string, keepJti: string | null = null, at = now()) {
      setCutoff.run(sub, at, keepJti);
      cutoffs.set(sub, { before: at, keepJti, at });
    },
    /** True when the token was issued before its account's sessions were ended. */
    isEndedByCutoff(claims: TokenClaims): boolean {
      if (typeof claims.sub !== 'string') return false;
      const at = now();
      let cutoff = cutoffs.get(claims.sub);
      if (cutoff === undefined || at - cutoff.at >= recheckMs) {
        const row = findCutoff.get(claims.sub);
        cutoff = { before: row?.before ?? 0, keepJti: row?.keepJti ?? null, at };
        cutoffs.set(claims.sub, cutoff);
      }
      if (cutoff.before === 0) return false;
      // A token without iat cannot show it is newer.
      const issued = typeof claims.iat === 'number' ? claims.iat * 1000 : 0;
      return issued <= cutoff.before && (cutoff.keepJti === null || claims.jti !== cutoff.keepJti);
    },
    isRevoked(claims: TokenClaims): boolean {
      const jti = claims.jti;
      if (typeof jti !== 'string') return false;
      if (revokedHere.get(jti)) return true;
      const at = now();
      const last = checked.get(jti);
      if (last !== undefined && at - last < recheckMs) return false;
      if (find.get(jti) !== undefined) return true;
      checked.set(jti, at);
      return false;
    },
  };
}

export type Revocations = ReturnType<typeof createRevocations>;

export const PASSWORD_CHANGED = 'The password of this account was changed, so this session has ended. Please sign in again.';

/** A verifier that also refuses revoked tokens (checked on every call, after any cache). */
export function refuseRevoked(verify: VerifyToken, revocations: Revocations): VerifyToken {
  return async (token) => {
    const claims = await verify(token);
    if (revocations.isRevoked(claims)) throw new TokenError('This session has ended (signed out). Please sign in again.');
    if (revocations.isEndedByCutoff(claims)) throw new TokenError(PASSWORD_CHANGED);
    return claims;
  };
}
