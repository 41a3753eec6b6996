import { expect, type Locator, type Page } from '@playwright/test';

/** `/app/search-profile`. */
export class SearchPage {
  readonly input: Locator;
  readonly submit: Locator;
  readonly results: Locator;

  constructor(private readonly page: Page) {
    this.input = page.getByRole('searchbox', { name: 'Username' });
    this.submit = page.getByRole('button', { name: 'Search', exact: true });
    this.results = page.getByRole('main').getByRole('listitem');
  }

  async goto(): Promise<void> {
    await this.page.goto('/app/search-profile');
    await expect(this.input).toBeVisible();
    // The page shows the server's prerender of this screen first (inert, replaced by the app's
    // first render: web/src/prerender/render.tsx); a file or text given to it would be lost.
    await expect(this.page.locator('[data-prerendered]')).toHaveCount(0);
  }

  async search(term: string): Promise<void> {
    await this.input.fill(term);
    await this.submit.click();
  }

  result(username: string): Locator {
    return this.page.getByRole('main').getByRole('link', { name: username, exact: true });
  }
}
