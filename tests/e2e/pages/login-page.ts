import { expect, type Locator, type Page } from '@playwright/test';

/** The app's `/`: title and the Login link that starts the provider's implicit flow. */
export class LoginPage {
  readonly title: Locator;
  readonly loginLink: Locator;

  constructor(private readonly page: Page) {
    this.title = page.getByRole('heading', { name: 'Shower Beer', level: 1 });
    this.loginLink = page.getByRole('link', { name: 'Login' });
  }

  async goto(): Promise<void> {
    await this.page.goto('/');
    await expect(this.title).toBeVisible();
  }

  async startLogin(): Promise<void> {
    await this.loginLink.click();
  }
}
