import { expect, type Locator, type Page } from '@playwright/test';

/** `/app/account`: the signed-in user's own profile. */
export class AccountPage {
  readonly name: Locator;
  readonly avatar: Locator;
  readonly changePhoto: Locator;
  readonly photoInput: Locator;
  readonly logout: Locator;
  readonly postsHeading: Locator;
  readonly tiles: Locator;
  readonly deleteAccount: Locator;
  readonly confirmUsername: Locator;
  readonly confirmDelete: Locator;
  readonly downloadData: Locator;
  readonly privateAccount: Locator;

  constructor(private readonly page: Page) {
    this.name = page.getByRole('heading', { level: 1 });
    this.avatar = page.getByRole('region', { name: 'Your profile' }).getByRole('img').first();
    this.changePhoto = page.getByRole('button', { name: 'Change Photo' });
    this.photoInput = page.getByLabel('Choose a new profile photo');
    this.logout = page.getByRole('button', { name: 'Logout' });
    this.postsHeading = page.getByRole('heading', { name: 'POSTS' });
    this.tiles = page.getByRole('button', { name: /^Open post:/ });
    this.deleteAccount = page.getByRole('button', { name: 'Delete account' });
    this.confirmUsername = page.getByLabel('Your username');
    this.confirmDelete = page.getByRole('button', { name: 'Delete for good' });
    this.downloadData = page.getByRole('button', { name: 'Download my data' });
    this.privateAccount = page.getByRole('switch', { name: 'Private account' });
  }

  async goto(): Promise<void> {
    await this.page.goto('/app/account');
    await expect(this.postsHeading).toBeVisible();
  }

  stat(label: 'Posts' | 'Likes' | 'Comments'): Locator {
    return this.page
      .getByRole('region', { name: 'Your profile' })
      .locator('dl > div')
      .filter({ has: this.page.getByRole('term').getByText(label, { exact: true }) })
      .getByRole('definition');
  }

  tile(caption: string): Locator {
    return this.tiles.filter({ has: this.page.getByRole('img', { name: `Photo: ${caption}` }) });
  }
}
