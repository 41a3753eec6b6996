import type { Locator } from '@playwright/test';

/** One post in a feed (or opened from a grid). */
export class PostCard {
  readonly likeButton: Locator;
  readonly unlikeButton: Locator;
  readonly likesText: Locator;
  readonly commentInput: Locator;
  readonly postCommentButton: Locator;
  readonly deletePostButton: Locator;
  readonly comments: Locator;
  readonly image: Locator;

  constructor(readonly root: Locator) {
    this.likeButton = root.getByRole('button', { name: 'Like', exact: true });
    this.unlikeButton = root.getByRole('button', { name: 'Unlike', exact: true });
    this.likesText = root.getByText(/^\d+ likes?$/);
    this.commentInput = root.getByLabel('Add a comment');
    this.postCommentButton = root.getByRole('button', { name: 'Post', exact: true });
    this.deletePostButton = root.getByRole('button', { name: 'Delete post' });
    this.comments = root.getByRole('list', { name: 'Comments' }).getByRole('listitem');
    this.image = root.getByRole('img').last();
  }

  header(): Locator {
    return this.root.locator('header');
  }

  comment(text: string): Locator {
    return this.comments.filter({ hasText: text });
  }

  async addComment(text: string): Promise<void> {
    await this.commentInput.fill(text);
    await this.postCommentButton.click();
  }
}
