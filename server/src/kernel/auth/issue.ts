import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { AuthConfig } from '../config.js';
import { SIGNING_ALG, type SigningKey } from './keys.js';

export interface TokenSubject {
  sub: string;
  username: string;
  email: string;
  /** An operator of this server: the token carries the role a Keycloak realm would give (OPERATOR_ROLE). */
  operator?: boolean;
  /** The token's id; a new random one when not given (a password change names the token it keeps). */
  jti?: string;
}

/** The realm role that makes a person an operator, in `realm_access.roles` as Keycloak puts it. */
export const OPERATOR_ROLE = 'shower-beer-admin';

/**
 * An access token from the embedded provider, shaped like Keycloak's
 * (preferred_username, azp, aud) so the API treats both alike.
 */
export async function issueAccessToken(key: SigningKey, auth: AuthConfig, subject: TokenSubject, ttlSeconds = auth.tokenTtlSeconds) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    preferred_username: subject.username,
    username: subject.username,
    email: subject.email,
    azp: auth.clientId,
    scope: 'email openid profile',
    typ: 'Bearer',
    ...(subject.operator ? { realm_access: { roles: [OPERATOR_ROLE] } } : {}),
  })
    .setProtectedHeader({ alg: SIGNING_ALG, kid: key.kid, typ: 'JWT' })
    .setIssuer(auth.issuer)
    .setSubject(subject.sub)
    .setAudience(auth.audience)
    .setIssuedAt(now)
    .setExpirationTime(now + ttlSeconds)
    .setJti(subject.jti ?? randomUUID())
    .sign(key.privateKey);
}
