import { expect, type Locator, type Page } from '@playwright/test';

/**
 * The operator pages' sections on who may join and the server's own page
 * (web/src/features/admin/registration-settings.tsx): all on the settings page but `waiting`,
 * which is on the daily one (AdminPage: gotoSettings, goto).
 */
export class RegistrationSettings {
  readonly serverPage: Locator;
  readonly whoMayJoin: Locator;
  readonly invites: Locator;
  readonly waiting: Locator;

  constructor(private readonly page: Page) {
    this.serverPage = page.getByRole('region', { name: 'Server page' });
    this.whoMayJoin = page.getByRole('region', { name: 'Who may join' });
    this.invites = page.getByRole('region', { name: 'Invite links' });
    this.waiting = page.getByRole('region', { name: 'Waiting for approval' });
  }

  async setServerPage(name: string, description: string, rules: string[]): Promise<void> {
    await this.serverPage.getByLabel('Name').fill(name);
    await this.serverPage.getByLabel('Short description').fill(description);
    await this.serverPage.getByLabel('Rules').fill(rules.join('\n'));
    await this.serverPage.getByRole('button', { name: 'Save server page' }).click();
    await expect(this.serverPage.getByRole('status')).toHaveText('Saved. The landing page shows it now.');
  }

  async setMode(label: 'Open' | 'Approval' | 'Invite only' | 'Closed'): Promise<void> {
    await this.whoMayJoin.getByRole('radio', { name: label }).check();
    await this.whoMayJoin.getByRole('button', { name: 'Save registration' }).click();
    await expect(this.whoMayJoin.getByRole('status')).toHaveText(`Saved: ${label}.`);
  }

  /** Makes an invite link and returns it. */
  async createInvite(uses: number): Promise<string> {
    await this.invites.getByLabel('Number of uses').selectOption(String(uses));
    await this.invites.getByRole('button', { name: 'Create invite link' }).click();
    const link = this.invites.getByLabel('New invite link (shown once: copy it now)');
    await expect(link).toHaveValue(/\/\?invite=[A-Za-z0-9_-]{24}$/);
    return link.inputValue();
  }
}
