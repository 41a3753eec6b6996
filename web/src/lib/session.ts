import { getConfig } from '@/lib/config';
import { revokeSession } from '@/lib/session-api';

const TOKEN_KEY = 'sb.accessToken';
const STATE_KEY = 'sb.oauthState';
const ME_KEY = 'sb.me';
const SIGN_IN_ERROR_KEY = 'sb.signInError';

export const INACTIVITY_MS = 15 * 60 * 1000;

export function getToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

function randomState(): string {
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
    state = randomState();
    sessionStorage.setItem(STATE_KEY, state);
  }
  const params = new URLSearchParams({
    response_type: 'token',
    client_id: auth.clientId,
    redirect_uri: auth.redirectUri,
    scope: auth.scope || 'email openid profile',
    state,
  });
  // URLSearchParams writes spaces as '+'; the spec's scope is space separated, sent as %20.
  return `${auth.authorizeUrl}?${params.toString().replace(/\+/g, '%20')}`;
}

/**
 * Runs once before the first render: takes the access token out of the URL fragment
 * (only when the state matches the one we sent), stores it and clears the fragment at once.
 */
export function consumeRedirectFragment(): void {
  const hash = window.location.hash;
  if (!hash.includes('access_token=') && !hash.includes('error=')) return;
  const params = new URLSearchParams(hash.slice(1));
  history.replaceState(history.state, '', window.location.pathname + window.location.search);
  const expected = sessionStorage.getItem(STATE_KEY);
  sessionStorage.removeItem(STATE_KEY);
  const token = params.get('access_token');
  if (params.get('error')) {
    sessionStorage.setItem(SIGN_IN_ERROR_KEY, 'Sign-in was cancelled or failed. Please try again.');
    return;
  }
  if (!token || !expected || params.get('state') !== expected) {
    sessionStorage.setItem(SIGN_IN_ERROR_KEY, 'That sign-in could not be verified. Please try again.');
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  sessionStorage.removeItem(ME_KEY);
}

/** A message for the login page about the last failed sign-in, read once. */
export function takeSignInError(): string | null {
  const msg = sessionStorage.getItem(SIGN_IN_ERROR_KEY);
  sessionStorage.removeItem(SIGN_IN_ERROR_KEY);
  return msg;
}

function clearSession(): void {
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(ME_KEY);
}

/** Logout: forget the token and end the provider's session too, which sends the browser back to /. */
export function logout(): void {
  revokeSession(getToken());
  clearSession();
  const { auth } = getConfig();
  if (!auth.logoutUrl) {
    window.location.assign('/');
    return;
  }
  const params = new URLSearchParams({ client_id: auth.clientId, post_logout_redirect_uri: auth.postLogoutRedirectUri });
  window.location.assign(`${auth.logoutUrl}?${params.toString()}`);
}

/** The token was refused (expired or revoked): forget it and go back to the login page. */
export function endSessionUnauthorized(): void {
  clearSession();
  sessionStorage.setItem(SIGN_IN_ERROR_KEY, 'Your session has ended. Please log in again.');
  window.location.assign('/');
}

export interface Me {
  username: string | null;
  email: string | null;
  profilePictureUrl: string | null;
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
