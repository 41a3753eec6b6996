import { expect, type Locator, type Page } from '@playwright/test';

/** `/app/profile/:username`: another user's profile. */
export class ProfilePage {
  readonly name: Locator;
  /** The follow toggle while you do not follow them (aria-pressed="false"). */
  readonly follow: Locator;
  /** The same toggle while you do (aria-pressed="true"): pressing it unfollows. */
  readonly unfollow: Locator;
  readonly tiles: Locator;
  readonly block: Locator;
  readonly unblock: Locator;

  constructor(private readonly page: Page) {
    this.name = page.getByRole('heading', { level: 1 });
    // One toggle button named "Follow" whose aria-pressed says whether you do.
    this.follow = page.getByRole('button', { name: 'Follow', exact: true, pressed: false });
    this.unfollow = page.getByRole('button', { name: 'Follow', exact: true, pressed: true });
    this.tiles = page.getByRole('button', { name: /^Open post:/ });
    this.block = page.getByRole('button', { name: 'Block', exact: true });
    this.unblock = page.getByRole('button', { name: 'Unblock', exact: true });
  }

  async goto(username: string): Promise<void> {
    await this.page.goto(`/app/profile/${encodeURIComponent(username)}`);
    await expect(this.name).toHaveText(username);
  }
}
