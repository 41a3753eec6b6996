import { expect, type Locator, type Page } from '@playwright/test';

/** `/app/profile/:username`: another user's profile. */
export class ProfilePage {
  readonly name: Locator;
  /** "Follow", shown while you do not follow them. */
  readonly follow: Locator;
  /** The same button while you do: the spec's "Follow becomes Unfollow after the call". */
  readonly unfollow: Locator;
  readonly tiles: Locator;
  readonly block: Locator;
  readonly unblock: Locator;
  /** The Follow button while a private account has not answered: pressing it cancels the request. */
  readonly requested: Locator;
  /** What a private account shows instead of its posts to people who do not follow it. */
  readonly privateNotice: Locator;

  constructor(private readonly page: Page) {
    this.name = page.getByRole('heading', { level: 1 });
    // Found by their visible text, as a person finds them.
    this.follow = page.getByRole('button', { name: 'Follow', exact: true });
    this.unfollow = page.getByRole('button', { name: 'Unfollow', exact: true });
    this.tiles = page.getByRole('button', { name: /^Open post:/ });
    this.block = page.getByRole('button', { name: 'Block', exact: true });
    this.unblock = page.getByRole('button', { name: 'Unblock', exact: true });
    this.requested = page.getByRole('button', { name: /^Requested/ });
    this.privateNotice = page.getByText('This account is private', { exact: true });
  }

  async goto(username: string): Promise<void> {
    await this.page.goto(`/app/profile/${encodeURIComponent(username)}`);
    await expect(this.name).toHaveText(username);
  }
}
