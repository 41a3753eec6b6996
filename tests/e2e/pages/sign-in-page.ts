import { expect, type Page } from '@playwright/test';

export interface Credentials {
  username: string;
  email: string;
  password: string;
}

export type ProviderKind = 'embedded' | 'keycloak' | 'glewlwyd';

/**
 * Creates a Glewlwyd user through its admin REST API (POST /api/auth/ as the
 * packaged administrator, then POST /api/user/): Glewlwyd has no self-registration
 * page by default. The runner gives the API's URL in E2E_GLEWLWYD_ADMIN_URL.
 */
export async function createGlewlwydUser(user: Credentials): Promise<void> {
  const api = process.env.E2E_GLEWLWYD_ADMIN_URL?.replace(/\/+$/, '');
  if (!api) throw new Error('E2E_GLEWLWYD_ADMIN_URL must be set to run the suite against Glewlwyd (e.g. http://127.0.0.1:PORT/api)');
  const auth = await fetch(`${api}/auth/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      username: process.env.E2E_GLEWLWYD_ADMIN_USER ?? 'admin',
      password: process.env.E2E_GLEWLWYD_ADMIN_PASSWORD ?? 'password',
    }),
  });
  if (!auth.ok) throw new Error(`Glewlwyd admin sign-in: ${auth.status}`);
  const cookie = auth.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const body = JSON.stringify({
    username: user.username,
    name: user.username,
    email: user.email,
    password: user.password,
    scope: ['openid', 'email', 'profile'],
    enabled: true,
  });
  // Seen once in a full run with two workers: POST /user/ answered 500 with an empty
  // body (SQLite backend, people signing in at the same moment). Try again; a user
  // that did get made counts.
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${api}/user/`, { method: 'POST', headers: { 'content-type': 'application/json', cookie }, body });
    if (res.ok) return;
    const exists = await fetch(`${api}/user/${encodeURIComponent(user.username)}`, { headers: { cookie } });
    if (exists.ok) return;
    if (res.status < 500 || attempt === 5) throw new Error(`Glewlwyd POST /user/: ${res.status} ${await res.text()}`);
    await new Promise((r) => setTimeout(r, 200 * attempt));
  }
}

/**
 * The identity provider's own pages, reached from the app's Login link. Handles the
 * embedded provider (server/src/idp); Keycloak 26's login theme (keycloak.v2):
 * login.ftl (#username, #password, #kc-login, "Register" link) and register.ftl
 * (#username, #email, #firstName, #lastName, #password, #password-confirm, "Register");
 * and Glewlwyd 2.7's login.html (#username, #password, #loginbut; then, the first
 * time for a client, scope checkboxes and "Grant access"; then a "Continue" button,
 * which it shows on every authorize while signed in instead of redirecting).
 */
export class SignInPage {
  constructor(
    private readonly page: Page,
    private readonly provider: ProviderKind,
  ) {}

  async waitUntilShown(): Promise<void> {
    if (this.provider === 'embedded') {
      await expect(this.page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    } else if (this.provider === 'glewlwyd') {
      await expect(this.page.locator('#loginbut')).toBeVisible();
      await expect(this.page.locator('#password')).toBeVisible();
    } else {
      await expect(this.page.locator('#kc-login')).toBeVisible();
    }
  }

  /** Glewlwyd after the password: grant the scopes if it asks (first use), then "Continue". */
  private async glewlwydContinue(): Promise<void> {
    const grant = this.page.getByRole('button', { name: 'Grant access' });
    const next = this.page.getByRole('button', { name: 'Continue' });
    await expect(grant.or(next).first()).toBeVisible();
    if (await grant.isVisible()) {
      for (const box of await this.page.locator('input[type="checkbox"]:visible').all()) await box.check();
      await grant.click();
    }
    await next.click();
  }

  /**
   * After the app sends the browser to the provider's logout: Keycloak asks to confirm
   * (logout-confirm.ftl, #kc-logout) when no id_token_hint is given, and sends the browser
   * straight back to the app's / when the app had an ID token to give (web/src/lib/session.ts);
   * the embedded provider never asks.
   */
  async confirmLogoutIfAsked(): Promise<void> {
    if (this.provider !== 'keycloak') return;
    const confirm = this.page.locator('#kc-logout');
    const backAtStart = () => {
      const url = new URL(this.page.url());
      return !url.pathname.startsWith('/realms/') && url.pathname === '/';
    };
    await expect.poll(async () => backAtStart() || (await confirm.isVisible()), { timeout: 10_000 }).toBe(true);
    if (!backAtStart()) await confirm.click();
  }

  async signIn(user: Credentials): Promise<void> {
    await this.waitUntilShown();
    if (this.provider === 'embedded') {
      await this.page.getByLabel('Username or email').fill(user.username);
      await this.page.getByLabel('Password').fill(user.password);
      await this.page.getByRole('button', { name: 'Sign in' }).click();
    } else if (this.provider === 'glewlwyd') {
      await this.page.locator('#username').fill(user.username);
      await this.page.locator('#password').fill(user.password);
      await this.page.locator('#loginbut').click();
      await this.glewlwydContinue();
    } else {
      await this.page.locator('#username').fill(user.username);
      await this.page.locator('#password').fill(user.password);
      await this.page.locator('#kc-login').click();
    }
  }

  async signUp(user: Credentials): Promise<void> {
    await this.waitUntilShown();
    if (this.provider === 'embedded') {
      await this.page.getByRole('link', { name: 'Create account' }).click();
      await expect(this.page.getByRole('heading', { name: 'Create account' })).toBeVisible();
      await this.page.getByLabel('Username').fill(user.username);
      await this.page.getByLabel('Email').fill(user.email);
      await this.page.getByLabel('Password').fill(user.password);
      await this.page.getByRole('button', { name: 'Create account' }).click();
    } else if (this.provider === 'glewlwyd') {
      // No registration page: the account is made through the admin API, then used on Glewlwyd's own pages.
      await createGlewlwydUser(user);
      await this.signIn(user);
    } else {
      await this.page.getByRole('link', { name: 'Register' }).click();
      await expect(this.page.locator('#password-confirm')).toBeVisible();
      await this.page.locator('#username').fill(user.username);
      await this.page.locator('#email').fill(user.email);
      await this.page.locator('#firstName').fill('Shower');
      await this.page.locator('#lastName').fill('Tester');
      await this.page.locator('#password').fill(user.password);
      await this.page.locator('#password-confirm').fill(user.password);
      await this.page.getByRole('button', { name: 'Register' }).click();
    }
  }
}
