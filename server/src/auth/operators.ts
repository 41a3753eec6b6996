import type { AuthConfig } from '../config.js';
import { OPERATOR_ROLE } from './issue.js';
import type { TokenClaims } from './verify.js';

/** ADMIN_USERNAMES names this account (embedded provider only; README, "Operators"). */
export const isAdminUsername = (auth: AuthConfig, username: string) => auth.adminUsernames.includes(username.toLowerCase());

/**
 * Whether a verified token's holder is an operator. Decided here from the token
 * and the server's own settings, never from anything the client says: the realm
 * role OPERATOR_ROLE in `realm_access.roles` (Keycloak puts realm roles there, and
 * the embedded provider gives it to its first account and to ADMIN_USERNAMES),
 * or, with the embedded provider, a name in ADMIN_USERNAMES now (so a change of
 * the setting holds without signing in again).
 */
export function isOperator(auth: AuthConfig, claims: TokenClaims, username: string): boolean {
  const roles = (claims as { realm_access?: { roles?: unknown } }).realm_access?.roles;
  if (Array.isArray(roles) && roles.includes(OPERATOR_ROLE)) return true;
  return auth.provider === 'embedded' && isAdminUsername(auth, username);
}
