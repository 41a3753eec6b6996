import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, ftruncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test as base, expect, type Browser, type Locator, type Page } from '@playwright/test';
import { audit } from './axe';
import sharp from 'sharp';
import { TOKEN_KEY } from '../../web/src/lib/first-requests';
import { ensureOperator, keycloakUrl } from './keycloak-admin';
import { LoginPage } from './pages/login-page';
import { SignInPage, type Credentials, type ProviderKind } from './pages/sign-in-page';
import { apiSignInWorks, appOrigin, giveSession, tokenFor, workerToken } from './session';

export { expect, TOKEN_KEY };

/**
 * A screenshot for a person to look at, into E2E_SHOTS_DIR (`<name>.png`, folders made as needed).
 * Without it none is taken: CI never opens them, and full-page shots were a fifth of some tests'
 * time on 2 cores (issue 43 keeps each test under a third of its timeout). What a test checks it
 * asserts; a screenshot is only ever a picture.
 */
export async function lookAt(
  target: Page | Locator,
  name: string,
  options: { fullPage?: boolean; scale?: 'css' | 'device' } = {},
): Promise<void> {
  const dir = process.env.E2E_SHOTS_DIR;
  if (!dir) return;
  const path = join(dir, `${name}.png`);
  mkdirSync(dirname(path), { recursive: true });
  if ('goto' in target) await target.screenshot({ ...options, path });
  else await target.screenshot({ scale: options.scale, path });
}

/** Whether lookAt takes pictures in this run (a test may skip what only a picture needs). */
export const takingPictures = () => Boolean(process.env.E2E_SHOTS_DIR);

/** The two screens the features beyond the spec are checked on: a phone (390×844) and a desktop. */
export const PHONE_AND_DESKTOP = [
  { name: 'phone', viewport: { width: 390, height: 844 } },
  { name: 'desktop', viewport: { width: 1280, height: 900 } },
] as const;
/**
 * The sizes a test written for both runs at: both, unless E2E_SIZES names fewer (`phone`). The
 * stack lane (scripts/test-stack.ts) runs its provider lanes at phone size only: the pages are
 * the same as in the embedded lane, which walks both sizes; what that lane checks is the sign-in
 * and the storage through real servers (tests/e2e/COVERAGE.md).
 */
export const SIZES = ((wanted) => (wanted.length ? PHONE_AND_DESKTOP.filter((s) => wanted.includes(s.name)) : PHONE_AND_DESKTOP))(
  (process.env.E2E_SIZES ?? '').split(',').map((s) => s.trim()).filter(Boolean),
);
export type { Credentials };

const runId = `${Date.now().toString(36).slice(-5)}${randomBytes(2).toString('hex')}`;
let counter = 0;

/** Credentials nobody has used yet (unique per run, so the suite runs again on the same server). */
export function newUser(prefix = 'u'): Credentials {
  counter += 1;
  const username = `${prefix}${runId}${process.pid % 1000}${counter}`.slice(0, 30);
  return { username, email: `${username}@example.test`, password: `Pw-${randomBytes(6).toString('hex')}!` };
}

/** A caption nobody else's test will write. */
export const uniqueText = (what: string) => `${what} ${runId}-${randomBytes(3).toString('hex')}`;

const files = mkdtempSync(join(tmpdir(), 'shower-beer-files-'));

/** A small real JPEG, a different colour every time. */
export async function makeImage(name = `photo-${randomBytes(3).toString('hex')}.jpg`, width = 480, height = 360): Promise<string> {
  const path = join(files, name);
  const [r, g, b] = randomBytes(3);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="rgb(${r},${g},${b})"/><stop offset="1" stop-color="#f5a524"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#g)"/><circle cx="${width / 2}" cy="${height / 2}" r="${height / 4}" fill="#fffaf0"/></svg>`;
  await sharp(Buffer.from(svg)).jpeg({ quality: 80 }).toFile(path);
  return path;
}

/** A sparse file just over 100 MB (no 100 MB written to disk or sent through the browser protocol). */
export function makeHugeFile(name = 'huge.jpg'): string {
  const path = join(files, name);
  const fd = openSync(path, 'w');
  ftruncateSync(fd, 100 * 1024 * 1024 + 1);
  closeSync(fd);
  return path;
}

interface Fixtures {
  provider: ProviderKind;
  /**
   * axe on what `page` shows now, light and dark (tests/e2e/axe.ts): `only` narrows it to a
   * dialog or menu over a screen checked already. Once per screen and width in a worker.
   */
  axe: (page: Page, screen: string, only?: string) => Promise<void>;
}

const KINDS: readonly ProviderKind[] = ['embedded', 'keycloak', 'glewlwyd'];

/**
 * The provider the app at `origin` names in its /config.json: asked once per worker (a server's
 * provider does not change while the suite runs), not with a request context of its own per test.
 */
const detected = new Map<string, Promise<ProviderKind>>();
function detectProvider(origin: string): Promise<ProviderKind> {
  let kind = detected.get(origin);
  if (!kind) {
    kind = fetch(new URL('/config.json', origin))
      .then((res) => res.json() as Promise<{ auth: { provider: string; authorizeUrl: string } }>)
      .then(({ auth }) => (auth.provider === 'embedded' ? 'embedded' : /\/api\/oidc\/auth$/.test(auth.authorizeUrl) ? 'glewlwyd' : 'keycloak'));
    // A failed look is not kept: the next test asks again.
    kind.catch(() => detected.delete(origin));
    detected.set(origin, kind);
  }
  return kind;
}

/**
 * Which provider's pages the suite will meet: E2E_PROVIDER when the runner says so,
 * otherwise read from the app's /config.json (Glewlwyd's endpoints live under /api/oidc/).
 */
export const test = base.extend<Fixtures>({
  provider: async ({ baseURL }, use) => {
    const fromEnv = process.env.E2E_PROVIDER as ProviderKind | undefined;
    if (fromEnv !== undefined && !KINDS.includes(fromEnv)) throw new Error(`E2E_PROVIDER must be one of ${KINDS.join(', ')}`);
    await use(fromEnv ?? (await detectProvider(baseURL!)));
  },
  // eslint-disable-next-line no-empty-pattern
  axe: async ({}, use, testInfo) => {
    await use((page, screen, only) => audit(page, testInfo, screen, only));
  },
});

/**
 * Goes from `/` through the provider's sign-up page back into the app, as a person would. For the
 * tests whose subject is signing up (tests/e2e/auth.spec.ts); the others use `joinViaApi`.
 */
export async function signUp(page: Page, provider: ProviderKind, user = newUser()): Promise<Credentials> {
  const login = new LoginPage(page);
  await login.goto();
  await login.startLogin();
  await new SignInPage(page, provider).signUp(user);
  if (provider === 'embedded') {
    // The embedded sign-up lands on the welcome, once (issue 48; joining.spec.ts walks it); these tests go on from the profile.
    await page.waitForURL('**/app/welcome');
    await expect(page.getByRole('heading', { level: 1, name: /^Welcome to / })).toBeVisible();
    await page.goto('/app/account');
  } else {
    await page.waitForURL('**/app/account');
  }
  await expect(page.getByRole('heading', { name: 'POSTS' })).toBeVisible();
  return user;
}

/** Signs in on the provider's own page (the subject of tests/e2e/auth.spec.ts and passwords.spec.ts). */
export async function signIn(page: Page, provider: ProviderKind, user: Credentials): Promise<void> {
  const login = new LoginPage(page);
  await login.goto();
  await login.startLogin();
  await new SignInPage(page, provider).signIn(user);
  await page.waitForURL('**/app/account');
  await expect(page.getByRole('heading', { name: 'POSTS' })).toBeVisible();
}

/**
 * A new person, made and signed in without the browser (tests/e2e/session.ts), whose page opens
 * their own profile signed in: for every test that is not about signing up. Glewlwyd, which has
 * no form a plain HTTP client can post, is walked through its pages instead.
 */
export async function joinViaApi(page: Page, provider: ProviderKind, user = newUser()): Promise<Credentials> {
  if (!apiSignInWorks(provider)) return signUp(page, provider, user);
  await giveSession(page.context(), await tokenFor(provider, user, true));
  await openOwnProfile(page);
  return user;
}

/** Signs a known person in without the browser: once per worker, the token reused after that. */
export async function signInViaApi(page: Page, provider: ProviderKind, user: Credentials): Promise<void> {
  if (!apiSignInWorks(provider)) return signIn(page, provider, user);
  await giveSession(page.context(), await workerToken(provider, user, () => tokenFor(provider, user, false)));
  await openOwnProfile(page);
}

async function openOwnProfile(page: Page): Promise<void> {
  await page.goto('/app/account');
  await expect(page.getByRole('heading', { name: 'POSTS' })).toBeVisible();
}

/**
 * A person who acts through the API only, with no browser of their own: for the likes, follows and
 * comments a test needs from others while what it checks is what the page's person sees.
 */
export async function apiPerson(provider: ProviderKind, user = newUser('a')) {
  const token = await tokenFor(provider, user, true);
  return { user, token, call: apiCaller(token, user.username) };
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** API calls with this token, each expected to succeed; the answer's JSON (null when empty). */
export function apiCaller(token: string, who: string) {
  const origin = appOrigin();
  return async (method: Method, path: string, data?: unknown): Promise<unknown> => {
    const res = await fetch(`${origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(data === undefined ? {} : { 'content-type': 'application/json' }) },
      body: data === undefined ? undefined : JSON.stringify(data),
    });
    const text = await res.text();
    expect(res.ok, `${who}: ${method} ${path}: ${res.status} ${text}`).toBe(true);
    return text ? (JSON.parse(text) as unknown) : null;
  };
}

/**
 * One API call as the person signed in on `page` (their token, where the app keeps it): for the
 * state a test starts from when another test walks the screen that makes it (issue 43).
 */
export async function callAs(page: Page, method: Method, path: string, data?: unknown): Promise<unknown> {
  const token = await accessToken(page);
  expect(token, 'the page is signed in').toBeTruthy();
  return apiCaller(token!, 'the signed-in person')(method, path, data);
}

/** A second person in their own browser context (on a screen of the given size, else Playwright's default), made through the API. */
export async function secondPerson(
  browser: Browser,
  provider: ProviderKind,
  baseURL: string | undefined,
  viewport?: { width: number; height: number } | null,
) {
  const context = await browser.newContext({ baseURL, ...(viewport ? { viewport } : {}) });
  const page = await context.newPage();
  const user = await joinViaApi(page, provider, newUser('v'));
  return { context, page, user };
}

/**
 * The operator the suite may use. On the embedded provider: a name in the server's
 * ADMIN_USERNAMES, given as E2E_OPERATOR (playwright.config.ts and scripts/test-e2e-external.mjs
 * set both for the servers they start). On Keycloak: a realm user given the role
 * `shower-beer-admin` through Keycloak's admin API (the Keycloak lane gives its URL and admin as
 * E2E_KEYCLOAK_*). Elsewhere operators come from a role the test cannot grant: skipped.
 */
export function operatorOrSkip(provider: ProviderKind): Credentials {
  const username = provider === 'keycloak' && keycloakUrl() ? (process.env.E2E_OPERATOR ?? 'e2eoperator') : process.env.E2E_OPERATOR;
  test.skip(
    !(provider === 'embedded' || (provider === 'keycloak' && keycloakUrl())) || !username,
    'needs an operator: the embedded provider with E2E_OPERATOR named in ADMIN_USERNAMES, or Keycloak with its admin API (E2E_KEYCLOAK_URL)',
  );
  return {
    username: username!,
    email: `${username}@example.test`,
    password: process.env.E2E_OPERATOR_PASSWORD ?? 'Operator-e2e-keeps-order-42',
  };
}

/**
 * Signs the operator in, without the browser, once per worker (the token is reused by the
 * worker's later tests). Embedded: the account is signed up the first time, and signed in when
 * the other worker made it first. Keycloak: the account and its realm role come from the admin
 * API first, so the token carries the role.
 */
export async function signInAsOperator(page: Page, provider: ProviderKind, operator: Credentials): Promise<void> {
  await giveSession(page.context(), await operatorToken(provider, operator));
  await openOwnProfile(page);
}

/** The operator's token (signInAsOperator), for the operator's acts a test needs but does not walk. */
export function operatorToken(provider: ProviderKind, operator: Credentials): Promise<string> {
  return workerToken(provider, operator, async () => {
    if (provider === 'keycloak') {
      await ensureOperator(operator);
      return tokenFor(provider, operator, false);
    }
    try {
      return await tokenFor(provider, operator, true);
    } catch (err) {
      // Taken: the other worker (or an earlier run on this server) made the account.
      if (!/already taken/.test(String(err))) throw err;
      return tokenFor(provider, operator, false);
    }
  });
}

/**
 * Creates a post straight through the API with the signed-in page's token (presign → PUT →
 * create-post): for tests that need many posts and are not about the create screen.
 */
export async function createPostViaApi(
  page: Page,
  caption: string,
  isAnonymous = false,
  /** The photo's size: the default is too small for the server to make a 768-px rendition of it. */
  size = { width: 64, height: 48 },
  /** More of create-post's fields (a content warning: `{ sensitive: true, contentWarning }`). */
  fields: Record<string, unknown> = {},
): Promise<{ postid: number; s3Url: string }> {
  const token = await accessToken(page);
  const headers = { authorization: `Bearer ${token}` };
  const presign = await page.request.post('/api/presign-upload', {
    headers,
    data: { fileName: 'p.jpg', fileType: 'image/jpeg' },
  });
  expect(presign.ok()).toBe(true);
  const { uploadUrl, s3Key } = (await presign.json()) as { uploadUrl: string; s3Key: string };
  const put = await page.request.put(uploadUrl, {
    headers: { 'content-type': 'image/jpeg' },
    data: await sharp({ create: { ...size, channels: 3, background: '#f5a524' } }).jpeg().toBuffer(),
  });
  expect(put.ok()).toBe(true);
  const created = await page.request.post('/api/create-post', { headers, data: { s3Key, caption, isAnonymous, ...fields } });
  expect(created.status()).toBe(201);
  return (await created.json()) as { postid: number; s3Url: string };
}

/** Collects every alert/confirm message and accepts it. */
export function collectDialogs(page: Page): string[] {
  const messages: string[] = [];
  page.on('dialog', (dialog) => {
    messages.push(dialog.message());
    void dialog.accept();
  });
  return messages;
}

/** The viewed user's follower list as the spec's call answers it (`GET /api/account/{username}/followers`). */
export async function followerNames(page: Page, username: string): Promise<string[]> {
  const token = await accessToken(page);
  const res = await page.request.get(`/api/account/${encodeURIComponent(username)}/followers`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status()).toBe(200);
  return ((await res.json()) as { username: string }[]).map((f) => f.username);
}

/** The signed-in page's access token, where the app keeps it (web/src/lib/first-requests.ts). */
export function accessToken(page: Page): Promise<string | null> {
  return page.evaluate((key) => sessionStorage.getItem(key), TOKEN_KEY);
}
