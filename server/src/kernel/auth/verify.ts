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
  /** RFC 9068 access tokens (Glewlwyd's `at+jwt`) name their client here instead of `azp`. */
  client_id?: string;
}

export type VerifyToken = (token: string) => Promise<TokenClaims>;

export class TokenError extends Error {
  override name = 'TokenError';
}

/** Asymmetric algorithms only: `none` and HMAC tokens are refused. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/**
 * Verifies a bearer token the same way for the embedded provider (its own
 * public key) and for an OpenID provider (the JWKS fetched from an internal URL,
 * cached): signature, issuer, expiry, and the audience, or our client named in
 * `azp` (Keycloak) or `client_id` (RFC 9068, e.g. Glewlwyd, whose `aud` is the scope).
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
    if (!aud.includes(auth.audience) && payload.azp !== auth.clientId && payload.client_id !== auth.clientId) {
      throw new TokenError('The token was not issued for this application.');
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new TokenError('The token has no subject.');
    return payload as TokenClaims;
  };
}

const USERNAME_CLAIMS = ['preferred_username', 'username', 'cognito:username'] as const;
const hasText = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

export interface UserInfoOptions {
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/**
 * For providers whose access tokens name no user (Glewlwyd's carry only `sub`):
 * after the token verifies, asks the provider's userinfo endpoint once, with that
 * token, for the username and e-mail, so the person is not called 'Beer Lover'.
 * Wrapped by cacheVerifiedTokens, so it runs once per token. The answer must be
 * about the same `sub` (OpenID Connect Core 5.3.2). If userinfo cannot be reached
 * the token is not accepted this time (a plain Error: "could not be verified right
 * now") rather than renaming the person; if the provider refuses the token, it is
 * refused. The token itself is never logged or put in an error message.
 */
export function withUserInfo(verify: VerifyToken, userInfoUrl: string, opts: UserInfoOptions = {}): VerifyToken {
  if (userInfoUrl === '') return verify;
  const doFetch = opts.fetch ?? fetch;
  return async (token) => {
    const claims = await verify(token);
    if (USERNAME_CLAIMS.some((name) => hasText(claims[name]))) return claims;
    let res: Response;
    try {
      res = await doFetch(userInfoUrl, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        signal: AbortSignal.timeout(opts.timeoutMs ?? 5_000),
      });
    } catch (err) {
      throw new Error(`userinfo did not answer: ${(err as Error).name === 'TimeoutError' ? 'timed out' : (err as Error).message}`, { cause: err });
    }
    if (res.status === 401 || res.status === 403) throw new TokenError('The identity provider no longer accepts this token.');
    if (!res.ok) throw new Error(`userinfo answered ${res.status}`);
    let info: Record<string, unknown>;
    try {
      info = (await res.json()) as Record<string, unknown>;
    } catch {
      throw new Error('userinfo did not answer JSON');
    }
    if (typeof info !== 'object' || info === null || info.sub !== claims.sub) {
      throw new TokenError('The identity provider answered about another subject.');
    }
    const extra: Partial<TokenClaims> = {};
    for (const name of USERNAME_CLAIMS) if (hasText(info[name])) extra[name] = info[name];
    if (!hasText(claims.email) && hasText(info.email)) extra.email = info.email;
    return { ...claims, ...extra };
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

/**
 * Remembers tokens that verified, until they expire, so a signed-in client's
 * requests cost one RSA verification per token instead of one per request
 * (about a tenth of a feed request's CPU). Only successful verifications are
 * kept, an entry is never used past the token's `exp`, and the cache is bounded
 * (oldest out first). Deleted accounts are still refused per request by the
 * user lookup that follows verification.
 *
 * Requests that arrive with the same new token while it is being verified
 * share that one verification (a client opening the app sends several at
 * once). They also resume in the order they arrived: two separately started
 * verifications could finish in either order, so a like sent twice at once
 * could otherwise have its second copy recorded and the first refused.
 */
export function cacheVerifiedTokens(verify: VerifyToken, max = 10_000, now: () => number = Date.now): VerifyToken {
  const cache = new Map<string, TokenClaims>();
  const inFlight = new Map<string, Promise<TokenClaims>>();
  return async (token) => {
    const hit = cache.get(token);
    if (hit !== undefined) {
      if (typeof hit.exp === 'number' && hit.exp * 1000 > now()) return hit;
      cache.delete(token);
    }
    const pending = inFlight.get(token);
    if (pending !== undefined) return pending;
    const verifying = verify(token).then(
      (claims) => {
        inFlight.delete(token);
        if (typeof claims.exp === 'number' && claims.exp * 1000 > now()) {
          if (cache.size >= max) cache.delete(cache.keys().next().value as string);
          cache.set(token, claims);
        }
        return claims;
      },
      (err: unknown) => {
        inFlight.delete(token);
        throw err;
      },
    );
    inFlight.set(token, verifying);
    return verifying;
  };
}
