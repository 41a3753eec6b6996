// People made and signed in without the browser, for the tests whose subject is not signing up or
// in (issue 43: set up through the API, check through the UI). The token is got the way the app's
// own implicit flow gets it: the provider's sign-up or sign-in form posted over plain HTTP, and
// the access token read from the redirect's fragment. It is then put where the app keeps it
// (sessionStorage, web/src/lib/session.ts), which Playwright's storageState does not save: a
// context init script puts it into the tab before the app's code runs.
//
// Embedded provider (server/src/idp/page-routes.ts): POST /oauth2/signup or /oauth2/authorize with
// its double-submit CSRF token (cookie and field). Keycloak: the account is made with the admin
// API (tests/e2e/keycloak-admin.ts), then its login form (kc-form-login) is posted with the
// cookies of the authorize request. Glewlwyd has no form a plain client can post (its login page
// is a script): tests/e2e/fixtures.ts walks its pages instead, and only the @any-provider tests,
// whose subject is signing in, run there anyway.
import { randomBytes } from 'node:crypto';
import { test, type BrowserContext } from '@playwright/test';
import { TOKEN_KEY } from '../../web/src/lib/first-requests';
import { admin, REALM, userId } from './keycloak-admin';
import { createGlewlwydUser, type Credentials, type ProviderKind } from './pages/sign-in-page';

/** The app's address: playwright.config.ts's baseURL (a spec with a server of its own passes its origin instead). */
export function appOrigin(): string {
  const base = test.info().project.use.baseURL;
  if (!base) throw new Error('no baseURL: set it in playwright.config.ts');
  return base.replace(/\/+$/, '');
}

interface AuthConfig {
  provider: string;
  clientId: string;
  authorizeUrl: string;
  redirectUri: string;
  scope: string;
}

const configs = new Map<string, Promise<AuthConfig>>();
function authConfig(origin: string): Promise<AuthConfig> {
  let config = configs.get(origin);
  if (!config) {
    config = fetch(`${origin}/config.json`)
      .then((res) => res.json() as Promise<{ auth: AuthConfig }>)
      .then((body) => body.auth);
    configs.set(origin, config);
  }
  return config;
}

const hex = () => randomBytes(16).toString('hex');

function authorizeParams(config: AuthConfig): Record<string, string> {
  return {
    response_type: 'token',
    client_id: config.clientId,
    redirect_uri: config.redirectUri,
    scope: config.scope || 'email openid profile',
    state: hex(),
    nonce: hex(),
  };
}

/** The access token in a redirect's fragment, or an error naming what came back instead. */
async function tokenFromRedirect(res: Response, what: string): Promise<string> {
  const location = res.headers.get('location') ?? '';
  const token = new URLSearchParams(location.split('#')[1] ?? '').get('access_token');
  if (res.status >= 300 && res.status < 400 && token) return token;
  const body = (await res.text()).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').slice(0, 400);
  throw new Error(`${what}: no token came back (HTTP ${res.status}, location ${location.split('#')[0] || 'none'}): ${body}`);
}

async function embeddedToken(origin: string, user: Credentials, how: 'signup' | 'signin'): Promise<string> {
  const config = await authConfig(origin);
  const csrf = randomBytes(32).toString('base64url');
  const path = how === 'signup' ? '/oauth2/signup' : '/oauth2/authorize';
  const form = new URLSearchParams({
    ...authorizeParams(config),
    csrf_token: csrf,
    username: user.username,
    ...(how === 'signup' ? { email: user.email } : {}),
    password: user.password,
  });
  const res = await fetch(`${origin}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `sb_idp_csrf=${csrf}` },
    body: form,
  });
  return tokenFromRedirect(res, `embedded ${how} of ${user.username}`);
}

/** Keycloak: a realm user made through the admin API (as an administrator would), unless already there. */
export async function ensureKeycloakUser(user: Credentials, lastName = 'Tester'): Promise<string> {
  const existing = await userId(user.username);
  if (existing) return existing;
  const created = await admin('POST', `${REALM}/users`, {
    username: user.username,
    email: user.email,
    // Keycloak 26's user profile asks for both names: without them the first sign-in stops on "Update profile".
    firstName: 'Shower',
    lastName,
    enabled: true,
    emailVerified: true,
    credentials: [{ type: 'password', value: user.password, temporary: false }],
  });
  if (created.status !== 201 && created.status !== 409) throw new Error(`Keycloak user creation: ${created.status} ${JSON.stringify(created.body)}`);
  const id = await userId(user.username);
  if (!id) throw new Error(`Keycloak made no user ${user.username}`);
  return id;
}

const cookieHeader = (res: Response, jar: Map<string, string>) => {
  for (const c of res.headers.getSetCookie()) {
    const pair = c.split(';')[0]!;
    const eq = pair.indexOf('=');
    jar.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
};

async function keycloakToken(origin: string, user: Credentials): Promise<string> {
  const config = await authConfig(origin);
  const jar = new Map<string, string>();
  const page = await fetch(`${config.authorizeUrl}?${new URLSearchParams(authorizeParams(config))}`);
  const html = await page.text();
  const action = /<form[^>]*id="kc-form-login"[^>]*action="([^"]+)"/.exec(html) ?? /<form[^>]*action="([^"]+)"[^>]*id="kc-form-login"/.exec(html);
  if (!action) throw new Error(`Keycloak's sign-in page had no login form (HTTP ${page.status})`);
  const res = await fetch(action[1]!.replace(/&amp;/g, '&'), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(page, jar) },
    body: new URLSearchParams({ username: user.username, password: user.password, credentialId: '' }),
  });
  return tokenFromRedirect(res, `Keycloak sign-in of ${user.username}`);
}

/** Makes the account (when `create`) and signs it in; the provider's access token for the app. */
export async function tokenFor(provider: ProviderKind, user: Credentials, create: boolean, origin = appOrigin()): Promise<string> {
  if (provider === 'embedded') return embeddedToken(origin, user, create ? 'signup' : 'signin');
  if (provider === 'keycloak') {
    if (create) await ensureKeycloakUser(user);
    return keycloakToken(origin, user);
  }
  throw new Error(`no API sign-in for ${provider}: its pages are walked instead`);
}

/** True when tokenFor can do it without the browser. */
export const apiSignInWorks = (provider: ProviderKind) => provider === 'embedded' || (provider === 'keycloak' && !!process.env.E2E_KEYCLOAK_URL);

/**
 * From now on every tab of this context opens signed in with `token`, as if the app had just
 * taken it from the provider's redirect. Once per tab: after Logout (or the idle logout) the tab
 * stays signed out, as it would for a person.
 */
export async function giveSession(context: BrowserContext, token: string, origin = appOrigin()): Promise<void> {
  await context.addInitScript(
    ({ key, token, origin }) => {
      if (location.origin !== origin || sessionStorage.getItem('e2e.sessionGiven')) return;
      sessionStorage.setItem('e2e.sessionGiven', '1');
      sessionStorage.setItem(key, token);
    },
    { key: TOKEN_KEY, token, origin },
  );
}

/**
 * Tokens of this worker's people, reused by every test of the worker (the operator signs in once
 * per worker, not once per test). Renewed well before the 15 minutes both providers give a token
 * (TOKEN_TTL_SECONDS; the realm's accessTokenLifespan).
 */
const tokens = new Map<string, { token: string; at: number }>();
const RENEW_AFTER_MS = 8 * 60_000;

export async function workerToken(provider: ProviderKind, user: Credentials, make: () => Promise<string>, origin = appOrigin()): Promise<string> {
  const key = `${provider}:${origin}:${user.username}`;
  const known = tokens.get(key);
  if (known && Date.now() - known.at < RENEW_AFTER_MS) return known.token;
  const token = await make();
  tokens.set(key, { token, at: Date.now() });
  return token;
}

/** An account the provider knows, which no browser has used yet. */
export async function makeAccount(provider: ProviderKind, user: Credentials): Promise<void> {
  if (provider === 'embedded') await tokenFor(provider, user, true);
  else if (provider === 'keycloak') await ensureKeycloakUser(user);
  else await createGlewlwydUser(user);
}
