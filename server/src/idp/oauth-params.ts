import type { Config } from '../kernel/config.js';
import type { AuthorizeParams } from './pages.js';

const SCOPES = new Set(['openid', 'email', 'profile']);
export const DEFAULT_SCOPE = 'email openid profile';
const MAX_STATE = 2048;

export type ParamsCheck = { ok: true; params: AuthorizeParams } | { ok: false; message: string };

/**
 * One value of a query or form field: undefined when absent, null when it
 * is not a single string (given twice, or not text at all).
 */
export function single(source: unknown, name: string): string | undefined | null {
  if (typeof source !== 'object' || source === null) return undefined;
  const value = (source as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : null;
}

/** The one redirect URI registered for the app's client. */
export const registeredRedirectUri = (config: Config) => `${config.publicUrl}/app/account`;
export const registeredPostLogoutUri = (config: Config) => `${config.publicUrl}/`;

/**
 * Checks an authorization request against the one registered client. Any
 * problem is shown to the person, never sent to the redirect URI: a wrong
 * redirect URI may belong to an attacker.
 */
export function checkAuthorizeParams(source: unknown, config: Config): ParamsCheck {
  const values: Record<string, string | undefined> = {};
  for (const name of ['client_id', 'redirect_uri', 'response_type', 'scope', 'state']) {
    const value = single(source, name);
    if (value === null) return { ok: false, message: `The parameter ${name} must be given once.` };
    values[name] = value;
  }
  const { client_id: clientId, redirect_uri: redirectUri, response_type: responseType, scope, state } = values;
  if (!clientId) return { ok: false, message: 'The link does not say which application is asking (client_id is missing).' };
  if (clientId !== config.auth.clientId) return { ok: false, message: 'The application asking you to sign in is not known here (unknown client_id).' };
  if (!redirectUri) return { ok: false, message: 'The link does not say where to return after signing in (redirect_uri is missing).' };
  if (redirectUri !== registeredRedirectUri(config)) {
    return { ok: false, message: 'The link would send you to an address that is not registered for this application (redirect_uri), so it was stopped.' };
  }
  if (responseType !== 'token') return { ok: false, message: 'Only response_type=token is supported.' };
  const scopes = (scope ?? DEFAULT_SCOPE).split(' ').filter(Boolean);
  const unknown = scopes.find((s) => !SCOPES.has(s));
  if (unknown !== undefined) return { ok: false, message: `The scope ${unknown.slice(0, 50)} is not supported.` };
  if (state !== undefined && state.length > MAX_STATE) return { ok: false, message: 'The state parameter is too long.' };
  // An invite code the app put on the link (docs/registration.md): carried to sign-up, checked there.
  const invite = single(source, 'invite');
  if (invite === null || (invite !== undefined && invite.length > 100)) return { ok: false, message: 'The invite in this link is not valid.' };
  return {
    ok: true,
    params: {
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: responseType,
      scope: scopes.length > 0 ? scopes.join(' ') : DEFAULT_SCOPE,
      ...(state ? { state } : {}),
      ...(invite ? { invite } : {}),
    },
  };
}
