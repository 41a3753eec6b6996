import { revokeSession } from '@/lib/api/session';
import { getConfig } from '@/lib/config';
import { TOKEN_KEY } from '@/lib/first-requests';
import { storedInvite } from '@/lib/join';

const STATE_KEY = 'sb.oauthState';
const ME_KEY = 'sb.me';
const SIGN_IN_ERROR_KEY = 'sb.signInError';
const NONCE_KEY = 'sb.oauthNonce';
const ID_TOKEN_KEY = 'sb.idToken';
/** Set when the provider says the sign-in made the account (the embedded sign-up): the app shows its welcome once. */
const WELCOME_KEY = 'sb.welcome';
/**
 * Set by every logout (button or idle): the next authorize request carries
 * prompt=login, so the provider shows its sign-in form instead of silently signing
 * the previous person back in through its single-sign-on cookie. In localStorage:
 * it must survive the trip through the provider's logout and a closed tab.
 */
const REAUTH_KEY = 'sb.reauthenticate';

export const INACTIVITY_MS = 15 * 60 * 1000;

export function getToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

function randomHex(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The provider's sign-in page for the implicit flow, with a fresh state remembered for the return. */
export function buildLoginUrl(): string {
  const { auth } = getConfig();
  // One state per sign-in attempt, kept until the provider sends the browser back.
  let state = sessionStorage.getItem(STATE_KEY);
  if (!state) {
    state = randomHex();
    sessionStorage.setItem(STATE_KEY, state);
  }
  const scope = auth.scope || 'email openid profile';
  const params = new URLSearchParams({
    response_type: 'token',
    client_id: auth.clientId,
    redirect_uri: auth.redirectUri,
    scope,
    state,
  });
  // OpenID Connect: a nonce binds any ID token that comes back to this attempt (Glewlwyd refuses the request without one).
  if (scope.split(' ').includes('openid')) {
    let nonce = sessionStorage.getItem(NONCE_KEY);
    if (!nonce) {
      nonce = randomHex();
      sessionStorage.setItem(NONCE_KEY, nonce);
    }
    params.set('nonce', nonce);
  }
  if (localStorage.getItem(REAUTH_KEY)) params.set('prompt', 'login');
  // The embedded provider's sign-up fills in the invite of the link this tab was opened with (docs/registration.md).
  const invite = storedInvite();
  if (invite && auth.provider === 'embedded') params.set('invite', invite);
  // URLSearchParams writes spaces as '+'; the spec's scope is space separated, sent as %20.
  return `${auth.authorizeUrl}?${params.toString().replace(/\+/g, '%20')}`;
}

/** The claims of a JWT, unverified (only to compare the nonce we sent); null when it is not one. */
function jwtClaims(token: string): Record<string, unknown> | null {
  try {
    const part = token.split('.')[1];
    if (!part) return null;
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = Uint8Array.from(json, (c) => c.charCodeAt(0));
    const claims: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** What the person reads when the provider sent back an error instead of a token. */
export function describeProviderError(error: string, description: string | null): string {
  if (error === 'access_denied') return 'Sign-in was cancelled or failed. Please try again.';
  // Printable text only, kept short: it comes from the address bar.
  const detail = (description || error).replace(/[^\x20-\x7E\u00A0-\uFFFF]/g, ' ').trim().slice(0, 200);
  return `The sign-in service refused the request: ${detail}. Please try again, or tell whoever runs this site.`;
}

/**
 * Runs once before the first render: takes the access token out of the URL fragment
 * (only when the state matches the one we sent, and any ID token carries our nonce),
 * stores it and clears the fragment at once.
 */
export function consumeRedirectFragment(): void {
  const hash = window.location.hash;
  if (!hash.includes('access_token=') && !hash.includes('error=')) return;
  const params = new URLSearchParams(hash.slice(1));
  history.replaceState(history.state, '', window.location.pathname + window.location.search);
  const expected = sessionStorage.getItem(STATE_KEY);
  const nonce = sessionStorage.getItem(NONCE_KEY);
  sessionStorage.removeItem(STATE_KEY);
  sessionStorage.removeItem(NONCE_KEY);
  const token = params.get('access_token');
  const error = params.get('error');
  if (error) {
    sessionStorage.setItem(SIGN_IN_ERROR_KEY, describeProviderError(error, params.get('error_description')));
    return;
  }
  const idToken = params.get('id_token');
  const idClaims = idToken ? jwtClaims(idToken) : null;
  const idTokenOk = !idToken || (idClaims !== null && nonce !== null && idClaims.nonce === nonce);
  if (!token || !expected || params.get('state') !== expected || !idTokenOk) {
    sessionStorage.setItem(SIGN_IN_ERROR_KEY, 'That sign-in could not be verified. Please try again.');
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  // Kept only as id_token_hint for the provider's logout.
  if (idToken) sessionStorage.setItem(ID_TOKEN_KEY, idToken);
  sessionStorage.removeItem(ME_KEY);
  localStorage.removeItem(REAUTH_KEY);
  // server/src/idp/page-routes.ts adds it to a sign-up's redirect; a returning sign-in has none.
  if (params.get('new_account') === '1') sessionStorage.setItem(WELCOME_KEY, '1');
  else sessionStorage.removeItem(WELCOME_KEY);
}

/** Whether this tab's account was just made and has not seen the welcome yet (app/app-layout.tsx). */
export const welcomePending = (): boolean => sessionStorage.getItem(WELCOME_KEY) !== null;

/** The welcome was shown: from now on the app opens where it always does. */
export function welcomeShown(): void {
  sessionStorage.removeItem(WELCOME_KEY);
}

/** The new token a password change answers: this session goes on with it (the old one is refused from now on). */
export function replaceToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

/** A message for the login page about the last failed sign-in, read once. */
export function takeSignInError(): string | null {
  const msg = sessionStorage.getItem(SIGN_IN_ERROR_KEY);
  sessionStorage.removeItem(SIGN_IN_ERROR_KEY);
  return msg;
}

function clearSession(): void {
  sessionStorage.removeItem(WELCOME_KEY);
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(ID_TOKEN_KEY);
  sessionStorage.removeItem(ME_KEY);
}

/**
 * Logout (the button and the idle time-out): forget the token, make the next Login
 * show the provider's sign-in form (prompt=login), and end the provider's session
 * through its end_session endpoint, which sends the browser back to /. With an ID
 * token it goes as id_token_hint; without one, Keycloak asks "Do you want to log
 * out?" once (see docs/self-hosting.md, "Signing out").
 */
export function logout(): void {
  const idToken = sessionStorage.getItem(ID_TOKEN_KEY);
  // The token stops working on the server too (the request outlives the page: keepalive).
  revokeSession(getToken());
  clearSession();
  localStorage.setItem(REAUTH_KEY, '1');
  const { auth } = getConfig();
  if (!auth.logoutUrl) {
    window.location.assign('/');
    return;
  }
  const params = new URLSearchParams({ client_id: auth.clientId, post_logout_redirect_uri: auth.postLogoutRedirectUri });
  if (idToken) params.set('id_token_hint', idToken);
  window.location.assign(`${auth.logoutUrl}?${params.toString()}`);
}

/**
 * True once the page is on its way to `/` by a full load (endSessionUnauthorized): the app must
 * not go there itself first. A route change would load the login page's code in this document,
 * which reads the "session ended" message once (login-page.tsx), and the full load that follows
 * would then find it gone (auth.spec's 401 test failed so once in the Keycloak lane).
 */
let leavingForLogin = false;
export const isLeavingForLogin = () => leavingForLogin;

/** The token was refused (expired or revoked): forget it and go back to the login page. */
export function endSessionUnauthorized(): void {
  leavingForLogin = true;
  clearSession();
  sessionStorage.setItem(SIGN_IN_ERROR_KEY, 'Your session has ended. Please log in again.');
  window.location.assign('/');
}

/**
 * The server would not make an account for this sign-in (the registration mode, an invite that
 * cannot be used): back to the landing page, which says why.
 */
export function endSessionRefused(message: string): void {
  leavingForLogin = true;
  clearSession();
  sessionStorage.setItem(SIGN_IN_ERROR_KEY, message);
  window.location.assign('/');
}

export interface Me {
  username: string | null;
  email: string | null;
  profilePictureUrl: string | null;
  /** From GET /api/me: shows the operator's link. The server decides on every call regardless. */
  isOperator?: boolean;
  /** From GET /api/me: set while an operator has suspended the account. */
  suspension?: { reason: string; created_at: string } | null;
}

export function getCachedMe(): Me | null {
  try {
    const raw = sessionStorage.getItem(ME_KEY);
    return raw ? (JSON.parse(raw) as Me) : null;
  } catch {
    return null;
  }
}

export function setCachedMe(me: Me): void {
  sessionStorage.setItem(ME_KEY, JSON.stringify(me));
}
