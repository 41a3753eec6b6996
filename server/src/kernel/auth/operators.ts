import type { AuthConfig } from '../config.js';
import { OPERATOR_ROLE } from './issue.js';
import type { TokenClaims } from './verify.js';

/** ADMIN_USERNAMES names this account (embedded provider only; README, "Operators"). */
export const isAdminUsername = (auth: AuthConfig, username: string) => auth.adminUsernames.includes(username.toLowerCase());

/** The realm role OPERATOR_ROLE in `realm_access.roles`, where Keycloak puts realm roles. */
export function hasOperatorRole(claims: TokenClaims): boolean {
  const roles = (claims as { realm_access?: { roles?: unknown } }).realm_access?.roles;
  return Array.isArray(roles) && roles.includes(OPERATOR_ROLE);
}

/**
 * Whether a verified token's holder is an operator, decided by the server, never from
 * anything the client says. With an external provider: the realm role in the token.
 * With the embedded provider: the account's own grant (`hasGrant`,
 * moderation/operators-repository.ts), asked only then; the role in the tokens it issues
 * only mirrors that grant, and is not trusted on its own, so taking a name off
 * ADMIN_USERNAMES holds at once, and a name freed by a removed operator grants nothing.
 */
export function isOperator(auth: AuthConfig, claims: TokenClaims, hasGrant: () => boolean): boolean {
  if (auth.provider !== 'embedded') return hasOperatorRole(claims);
  return hasGrant();
}
