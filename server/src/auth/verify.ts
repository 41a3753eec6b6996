import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors as joseErrors,
  jwtVerify,
  type JWK,
  type JWTPayload,
} from 'jose';
import type { AuthConfig } from '../config.js';

export interface TokenClaims extends JWTPayload {
  sub: string;
  preferred_username?: string;
  username?: string;
  'cognito:username'?: string;
  email?: string;
  azp?: string;
}

export type VerifyToken = (token: string) => Promise<TokenClaims>;

export class TokenError extends Error {
  override name = 'TokenError';
}

/** Asymmetric algorithms only: `none` and HMAC tokens are refused. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/**
 * Verifies a bearer token the same way for the embedded provider (its own
 * public key) and for Keycloak (the JWKS fetched from an internal URL, cached):
 * signature, issuer, expiry, and audience or `azp`.
 */
export function createTokenVerifier(auth: AuthConfig, localKeys?: JWK[]): VerifyToken {
  const keySet = localKeys
    ? createLocalJWKSet({ keys: localKeys })
    : createRemoteJWKSet(new URL(auth.jwksUrl), { cacheMaxAge: 10 * 60_000, cooldownDuration: 30_000, timeoutDuration: 5_000 });

  return async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keySet, {
        issuer: auth.issuer,
        algorithms: ALGORITHMS,
        requiredClaims: ['sub', 'exp', 'iss'],
        clockTolerance: 5,
      }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new TokenError('The token has expired.');
      if (err instanceof joseErrors.JOSEError || err instanceof TypeError) throw new TokenError('The token is not valid.');
      throw err;
    }
    const aud = payload.aud === undefined ? [] : Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!aud.includes(auth.audience) && payload.azp !== auth.clientId) {
      throw new TokenError('The token was not issued for this application.');
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new TokenError('The token has no subject.');
    return payload as TokenClaims;
  };
}

/** The display name a token carries, in the order the spec's providers use. */
export function usernameFromClaims(claims: TokenClaims): string {
  const candidates = [claims.preferred_username, claims.username, claims['cognito:username'], claims.email?.split('@')[0]];
  for (const c of candidates) {
    if (typeof c === 'string' && c.trim() !== '') return c.trim().slice(0, 64);
  }
  return 'Beer Lover';
}
