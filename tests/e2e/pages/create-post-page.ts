import { expect, type Locator, type Page } from '@playwright/test';

/** `/app/create-post`. */
export class CreatePostPage {
  readonly fileInput: Locator;
  readonly caption: Locator;
  readonly altText: Locator;
  readonly counter: Locator;
  readonly anonymous: Locator;
  readonly anonymousHint: Locator;
  readonly submit: Locator;
  readonly headerShare: Locator;
  readonly removeImage: Locator;
  readonly preview: Locator;
  readonly back: Locator;
  /** Album: the input behind "Add more photos" / "Add photos for an album". */
  readonly addPhotos: Locator;
  /** Album: the photos in the order they will be posted. */
  readonly albumPhotos: Locator;
  readonly progressText: Locator;

  constructor(private readonly page: Page) {
    this.fileInput = page.getByLabel('Choose a photo');
    this.caption = page.getByLabel('Caption');
    this.altText = page.getByLabel('Describe the photo');
    this.counter = page.getByText(/^\d+\/2200$/);
    this.anonymous = page.getByRole('switch', { name: 'Post Anonymously' });
    this.anonymousHint = page.getByText('Hide your username from this post');
    this.submit = page.getByRole('button', { name: /^(Share Shower Beer|Sharing Your Moment\.\.\.)$/ });
    this.headerShare = page.getByRole('button', { name: 'Share', exact: true });
    this.removeImage = page.getByRole('button', { name: 'Remove Image' });
    this.preview = page.getByRole('img', { name: 'Preview of the selected photo' });
    this.back = page.getByRole('button', { name: 'Back' });
    this.addPhotos = page.getByLabel('Add photos', { exact: true });
    this.albumPhotos = page.getByRole('region', { name: 'Photos' }).getByRole('listitem');
    this.progressText = page.getByText(/^\d+ of \d+ photos uploaded$/);
  }

  /** Album: photo `n`'s description field (1-based, in the current order). */
  description(n: number): Locator {
    return this.page.getByLabel(`Describe photo ${n}`, { exact: true });
  }

  /** Album: the descriptions in the order the photos will be posted. */
  async descriptions(): Promise<string[]> {
    const count = await this.albumPhotos.count();
    const out: string[] = [];
    for (let n = 1; n <= count; n++) out.push(await this.description(n).inputValue());
    return out;
  }

  moveButton(n: number, direction: 'earlier' | 'later'): Locator {
    return this.page.getByRole('button', { name: `Move photo ${n} ${direction}` });
  }

  async goto(): Promise<void> {
    await this.page.goto('/app/create-post');
    await expect(this.submit).toBeVisible();
    // The page shows the server's prerender of this screen first (inert, replaced by the app's
    // first render: web/src/prerender/render.tsx); a file or text given to it would be lost.
    await expect(this.page.locator('[data-prerendered]')).toHaveCount(0);
  }

  async choose(file: string): Promise<void> {
    await this.fileInput.setInputFiles(file);
  }

  /** Fills the form and shares; resolves once the app has gone to the own profile. */
  async create(file: string, caption: string, anonymous = false, altText = ''): Promise<void> {
    await this.choose(file);
    await expect(this.preview).toBeVisible();
    await this.caption.fill(caption);
    if (altText) await this.altText.fill(altText);
    if (anonymous) await this.anonymous.check();
    await this.submit.click();
    await this.page.waitForURL('**/app/account');
  }
}
