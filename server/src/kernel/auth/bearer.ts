import { unauthorized } from '../errors.js';

/**
 * A JWT in `Authorization: Bearer <token>` (RFC 6750, section 2.1). The scheme is
 * case-insensitive, as every HTTP auth scheme is (RFC 9110, section 11.1), and one or more
 * spaces separate it from the token.
 */
const BEARER = /^Bearer +([A-Za-z0-9\-_=]+\.[A-Za-z0-9\-_=]+\.[A-Za-z0-9\-_=]*)$/i;

/** The token of an Authorization header; 401 when it is missing or not a bearer JWT. */
export function bearerToken(header: string | undefined): string {
  if (!header) throw unauthorized('Sign in first: the Authorization bearer token is missing.');
  const match = BEARER.exec(header);
  if (!match) throw unauthorized('The Authorization header must be "Bearer <token>".');
  return match[1]!;
}
