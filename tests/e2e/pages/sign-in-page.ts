import { expect, type Page } from '@playwright/test';

export interface Credentials {
  username: string;
  email: string;
  password: string;
}

export type ProviderKind = 'embedded' | 'keycloak';

/**
 * The identity provider's own pages, reached from the app's Login link. Handles the
 * embedded provider (server/src/idp) and Keycloak 26's login theme (keycloak.v2):
 * login.ftl (#username, #password, #kc-login, "Register" link) and register.ftl
 * (#username, #email, #firstName, #lastName, #password, #password-confirm, "Register").
 */
export class SignInPage {
  constructor(
    private readonly page: Page,
    private readonly provider: ProviderKind,
  ) {}

  async waitUntilShown(): Promise<void> {
    if (this.provider === 'embedded') {
      await expect(this.page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    } else {
      await expect(this.page.locator('#kc-login')).toBeVisible();
    }
  }

  /**
   * After the app sends the browser to the provider's logout: Keycloak asks to confirm
   * (logout-confirm.ftl, #kc-logout) when no id_token_hint is given; the embedded one does not.
   */
  async confirmLogoutIfAsked(): Promise<void> {
    if (this.provider === 'keycloak') await this.page.locator('#kc-logout').click();
  }

  async signIn(user: Credentials): Promise<void> {
    await this.waitUntilShown();
    if (this.provider === 'embedded') {
      await this.page.getByLabel('Username or email').fill(user.username);
      await this.page.getByLabel('Password').fill(user.password);
      await this.page.getByRole('button', { name: 'Sign in' }).click();
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
