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

  /**
   * The card whose caption contains this text, pressing "Load more posts" until it shows: other
   * tests' posts (two workers) may push it off the first page. A page's cards are all in once
   * its end shows ("Load more" or the end text, web/src/components/feed.tsx).
   */
  async find(caption: string): Promise<PostCard> {
    const card = this.post(caption);
    const loadMore = this.page.getByRole('button', { name: 'Load more posts' });
    const end = this.page.getByText("You're all caught up. Cheers!");
    for (let pages = 1; pages <= 6; pages++) {
      await expect(loadMore.or(end).first()).toBeVisible();
      if ((await card.root.count()) > 0 || !(await loadMore.isVisible())) break;
      const shown = await this.posts.count();
      await loadMore.click();
      await expect(this.posts).not.toHaveCount(shown);
    }
    await expect(card.root).toBeVisible();
    return card;
  }
}
