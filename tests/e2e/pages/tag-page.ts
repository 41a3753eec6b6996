import { expect, type Locator, type Page } from '@playwright/test';
import { PostCard } from './post-card';

/** A hashtag's page, `/app/tag/<tag>`: the posts with that tag, like Discover (issue 47). */
export class TagPage {
  readonly heading: Locator;
  readonly posts: Locator;

  constructor(
    private readonly page: Page,
    readonly tag: string,
  ) {
    this.heading = page.getByRole('heading', { level: 1, name: `#${tag}` });
    this.posts = page.getByRole('article');
  }

  async goto(): Promise<void> {
    await this.page.goto(`/app/tag/${encodeURIComponent(this.tag)}`);
    await expect(this.heading).toBeVisible();
  }

  /** The card whose caption contains this text (the tag's newest posts: a test's own is on the first page). */
  post(caption: string): PostCard {
    return new PostCard(this.posts.filter({ hasText: caption }));
  }
}
