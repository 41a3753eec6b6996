import { expect, type Locator, type Page } from '@playwright/test';

/** `/app/admin`: the operator's daily page; `/app/admin/settings`: what is set once (issue 48). */
export class AdminPage {
  readonly heading: Locator;
  readonly settingsHeading: Locator;
  /** The two operator pages' links under the title. */
  readonly tabs: Locator;
  readonly reports: Locator;
  readonly log: Locator;
  /** Who is an operator (embedded provider: the accounts holding the role). */
  readonly operators: Locator;

  constructor(private readonly page: Page) {
    this.heading = page.getByRole('heading', { level: 1, name: 'Moderation' });
    this.settingsHeading = page.getByRole('heading', { level: 1, name: 'Server settings' });
    this.tabs = page.getByRole('navigation', { name: 'Operator pages' });
    this.reports = page.getByRole('region', { name: 'Open reports' }).getByRole('listitem').filter({ has: page.getByRole('button', { name: 'Dismiss' }) });
    this.log = page.getByRole('list', { name: 'Operator actions, newest first' });
    this.operators = page.getByRole('region', { name: 'Operators' });
  }

  async goto(): Promise<void> {
    await this.page.goto('/app/admin');
    await expect(this.heading).toBeVisible();
  }

  /** The settings page: the server page, who may join, invite links, reset links, the operators. */
  async gotoSettings(): Promise<void> {
    await this.page.goto('/app/admin/settings');
    await expect(this.settingsHeading).toBeVisible();
  }

  /** One of the server's figures at the top (Users, Posts, Storage used, Open reports, Suspended). */
  figure(label: string): Locator {
    return this.page
      .locator('dl[aria-label="This server"] > div')
      .filter({ has: this.page.getByRole('term').getByText(label, { exact: true }) })
      .getByRole('definition');
  }

  /** The open report whose caption or comment holds this text. */
  report(text: string): Locator {
    return this.reports.filter({ hasText: text });
  }

  /** An action that asks for a reason: fills it in and confirms. */
  async act(report: Locator, button: RegExp | string, reason: string): Promise<void> {
    await report.getByRole('button', { name: button }).click();
    const dialog = this.page.getByRole('dialog');
    await dialog.getByLabel('Reason (the author sees it)').fill(reason);
    await dialog.locator('button[type="submit"]').click();
    await expect(dialog).toHaveCount(0);
  }
}
