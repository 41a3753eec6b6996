import type Database from 'better-sqlite3';
import { TokenError, type TokenClaims, type VerifyToken } from './verify.js';

/**
 * Tokens ended before their expiry: logout records the token's `jti` until its
 * `exp`, and every verification refuses a recorded one. In SQLite, so every
 * process sees a logout at once; expired rows are swept on each revocation.
 */
export function createRevocations(sqlite: Database.Database, now: () => number = Date.now) {
  const find = sqlite.prepare<[string], number>('SELECT 1 FROM revoked_tokens WHERE jti = ?').pluck();
  const insert = sqlite.prepare<[string, number]>('INSERT INTO revoked_tokens (jti, expires_at) VALUES (?, ?) ON CONFLICT DO NOTHING');
  const sweep = sqlite.prepare<[number]>('DELETE FROM revoked_tokens WHERE expires_at <= ?');
  return {
    /** Ends the token these claims came from; false when it cannot be named (no jti or exp). */
    revoke(claims: TokenClaims): boolean {
      if (typeof claims.jti !== 'string' || claims.jti === '' || typeof claims.exp !== 'number') return false;
      const at = now();
      sweep.run(at);
      if (claims.exp * 1000 > at) insert.run(claims.jti, claims.exp * 1000);
      return true;
    },
    isRevoked: (claims: TokenClaims) => typeof claims.jti === 'string' && find.get(claims.jti) !== undefined,
  };
}

export type Revocations = ReturnType<typeof createRevocations>;

/** A verifier that also refuses revoked tokens (checked on every call, after any cache). */
export function refuseRevoked(verify: VerifyToken, revocations: Revocations): VerifyToken {
  return async (token) => {
    const claims = await verify(token);
    if (revocations.isRevoked(claims)) throw new TokenError('This session has ended (signed out). Please sign in again.');
    return claims;
  };
}
