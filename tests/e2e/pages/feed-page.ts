import { expect, type Locator, type Page } from '@playwright/test';
import { NavBar } from './nav-bar';
import { PostCard } from './post-card';

/** Discover (`/app/discover`) and the Following Feed (`/app/follow-feed`). */
export class FeedPage {
  readonly nav: NavBar;
  readonly heading: Locator;
  readonly posts: Locator;

  constructor(
    private readonly page: Page,
    readonly kind: 'discover' | 'follow-feed',
  ) {
    this.nav = new NavBar(page);
    this.heading = page.getByRole('heading', { level: 1, name: kind === 'discover' ? 'Discover' : 'Following Feed' });
    this.posts = page.getByRole('article');
  }

  async goto(): Promise<void> {
    await this.page.goto(`/app/${this.kind}`);
    await expect(this.heading).toBeVisible();
  }

  /** The card whose caption contains this text. */
  post(caption: string): PostCard {
    return new PostCard(this.posts.filter({ hasText: caption }));
  }
}
