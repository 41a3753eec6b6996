import { expect, type Locator } from '@playwright/test';

/** One post in a feed (or opened from a grid). */
export class PostCard {
  /** The like toggle while you do not like the post (aria-pressed="false"). */
  readonly likeButton: Locator;
  /** The same toggle while you do (aria-pressed="true"): pressing it takes the like back. */
  readonly unlikeButton: Locator;
  readonly likesText: Locator;
  readonly commentInput: Locator;
  readonly postCommentButton: Locator;
  readonly deletePostButton: Locator;
  readonly comments: Locator;
  readonly image: Locator;
  readonly moreOptions: Locator;
  /** An album's photos, one shown at a time (web/src/components/photo-carousel.tsx). */
  readonly carousel: Locator;

  constructor(readonly root: Locator) {
    // One toggle button named "Like" whose aria-pressed says whether you do.
    this.likeButton = root.getByRole('button', { name: 'Like', exact: true, pressed: false });
    this.unlikeButton = root.getByRole('button', { name: 'Like', exact: true, pressed: true });
    this.likesText = root.getByText(/^\d+ likes?$/);
    this.commentInput = root.getByLabel('Add a comment');
    this.postCommentButton = root.getByRole('button', { name: 'Post', exact: true });
    this.deletePostButton = root.getByRole('button', { name: 'Delete post' });
    this.comments = root.getByRole('list', { name: 'Comments' }).getByRole('listitem');
    this.image = root.getByRole('img').last();
    this.moreOptions = root.getByRole('button', { name: 'More options' });
    this.carousel = root.getByRole('region', { name: /^Album of \d+ photos$/ });
  }

  /** ⋯ → Report post → a reason (and a note) → Send report; returns the dialog, still open on its thanks. */
  async report(reason: 'Spam' | 'Nudity' | 'Harassment' | 'Something else', note = ''): Promise<Locator> {
    await this.moreOptions.click();
    await this.root.getByRole('button', { name: 'Report post' }).click();
    const dialog = this.root.page().getByRole('dialog', { name: 'Report post' });
    await dialog.getByRole('radio', { name: reason }).check();
    if (note) await dialog.getByLabel('Anything an operator should know? (optional)').fill(note);
    await dialog.getByRole('button', { name: 'Send report' }).click();
    await expect(dialog.getByRole('status')).toBeVisible();
    return dialog;
  }

  /** ⋯ → Block …: the confirmation is a browser dialog, which the caller accepts (collectDialogs). */
  async blockAuthor(): Promise<void> {
    await this.moreOptions.click();
    await this.root.getByRole('button', { name: /^Block / }).click();
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
