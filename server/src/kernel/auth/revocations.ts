import type Database from 'better-sqlite3';
import { LruMap } from '../lru.js';
import { TokenError, type TokenClaims, type VerifyToken } from './verify.js';

export const SIGNED_OUT = 'This session has ended (signed out). Please sign in again.';
export const PASSWORD_CHANGED = 'The password of this account was changed, so this session has ended. Please sign in again.';

interface Cutoff {
  /** Tokens issued up to this time (ms) are refused… */
  before: number;
  /** …except this one: the token of the session that changed the password. */
  keepJti: string | null;
}

/** True when a cutoff refuses the token: issued in or before the cutoff's second, and not the one it keeps. */
function endedBy(cutoff: Cutoff | null | undefined, claims: TokenClaims): boolean {
  if (!cutoff) return false;
  // A token without iat cannot show it is newer.
  const issued = typeof claims.iat === 'number' ? claims.iat * 1000 : 0;
  return issued <= cutoff.before && (cutoff.keepJti === null || claims.jti !== cutoff.keepJti);
}

/**
 * Tokens ended before their expiry: logout records the token's `jti` until its
 * `exp`, and every verification refuses a recorded one. A password change or
 * reset ends every token of the account at once: a cutoff per `sub`
 * (session_cutoffs) refuses every token issued up to it. In SQLite, so every
 * process sees both; expired logouts are swept on each revocation.
 *
 * A logout or cutoff in this process is refused at once (kept in memory too). For
 * those of other processes, both tables are asked in one statement at most once
 * per token per `recheckMs`: asking on every request cost about 10 µs of a 50 µs
 * API request (measured with autocannon on GET /api/like), so another process's
 * logout takes effect within a second.
 */
export function createRevocations(sqlite: Database.Database, now: () => number = Date.now, recheckMs = 1_000) {
  const lookup = sqlite.prepare<[string, string], { revoked: number; before: number | null; keepJti: string | null }>(
    `SELECT EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = ?) AS revoked, c.before AS before, c.keep_jti AS keepJti
     FROM (SELECT 1) LEFT JOIN session_cutoffs c ON c.sub = ?`,
  );
  const insert = sqlite.prepare<[string, number]>('INSERT INTO revoked_tokens (jti, expires_at) VALUES (?, ?) ON CONFLICT DO NOTHING');
  const sweep = sqlite.prepare<[number]>('DELETE FROM revoked_tokens WHERE expires_at <= ?');
  const setCutoff = sqlite.prepare<[string, number, string | null]>(
    'INSERT INTO session_cutoffs (sub, before, keep_jti) VALUES (?, ?, ?) ON CONFLICT (sub) DO UPDATE SET before = excluded.before, keep_jti = excluded.keep_jti',
  );
  const cutoffOf = sqlite.prepare<[string], number>('SELECT before FROM session_cutoffs WHERE sub = ?').pluck();
  /** jti → when the tables last said it was not revoked, and its account's cutoff then; bounded like the token cache. */
  const checked = new LruMap<string, { at: number; cutoff: Cutoff | null }>(10_000);
  const revokedHere = new LruMap<string, true>(10_000);
  const cutoffsHere = new LruMap<string, Cutoff>(10_000);

  /** Why the token is refused (a message), or null. */
  function refusal(claims: TokenClaims): string | null {
    const jti = claims.jti;
    if (endedBy(cutoffsHere.get(claims.sub), claims)) return PASSWORD_CHANGED;
    if (typeof jti !== 'string') return null;
    if (revokedHere.get(jti)) return SIGNED_OUT;
    const at = now();
    const last = checked.get(jti);
    if (last !== undefined && at - last.at < recheckMs) return endedBy(last.cutoff, claims) ? PASSWORD_CHANGED : null;
    const row = lookup.get(jti, claims.sub)!;
    if (row.revoked) return SIGNED_OUT;
    const cutoff = row.before === null ? null : { before: row.before, keepJti: row.keepJti };
    checked.set(jti, { at, cutoff });
    return endedBy(cutoff, claims) ? PASSWORD_CHANGED : null;
  }

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
      cutoffsHere.set(sub, { before: at, keepJti });
    },
    /**
     * How long to wait before issuing this account a token that its cutoff does not
     * refuse: 0, except in the rest of the second of a password change (tokens name
     * their issue time in whole seconds). Sign-in waits it out (idp/page-routes.ts).
     */
    msUntilPastCutoff(sub: string): number {
      const before = cutoffOf.get(sub);
      if (before === undefined) return 0;
      const next = (Math.floor(before / 1000) + 1) * 1000;
      return Math.max(0, next - now());
    },
    refusal,
    isRevoked: (claims: TokenClaims): boolean => refusal(claims) === SIGNED_OUT,
    isEndedByCutoff: (claims: TokenClaims): boolean => refusal(claims) === PASSWORD_CHANGED,
  };
}

export type Revocations = ReturnType<typeof createRevocations>;

/** A verifier that also refuses revoked tokens and those a password change ended (checked on every call, after any cache). */
export function refuseRevoked(verify: VerifyToken, revocations: Revocations): VerifyToken {
  return async (token) => {
    const claims = await verify(token);
    const refused = revocations.refusal(claims);
    if (refused) throw new TokenError(refused);
    return claims;
  };
}
