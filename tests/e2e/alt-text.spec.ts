import { CreatePostPage } from './pages/create-post-page';
import { FeedPage } from './pages/feed-page';
import { expect, joinViaApi, lookAt, makeImage, secondPerson, SIZES, test, uniqueText } from './fixtures';

for (const { name, viewport } of SIZES) {
  test.describe(`alt text on a ${name}`, () => {
    test.use({ viewport });

    test('a description given when posting is the photo’s alt text for everyone, shown on request, and its author can edit it', async ({
      page,
      provider,
      browser,
      baseURL,
    }) => {
      await joinViaApi(page, provider);
      const create = new CreatePostPage(page);
      await create.goto();
      await create.choose(await makeImage());
      await expect(page.getByText('Adding a description helps people who use a screen reader enjoy your photo too.')).toBeVisible();
      await lookAt(page, `alt-text/create-alt-${name}`, { fullPage: true });
      const caption = uniqueText('Described beer');
      const description = uniqueText('An amber ale on a tiled shelf, steam in the air');
      await create.caption.fill(caption);
      // A description of a few lines shows whole, its first line too (issue 48): the box grows with it.
      await create.altText.fill(`${description}. `.repeat(4));
      await expect.poll(() => create.altText.evaluate((el) => el.scrollHeight - el.clientHeight)).toBeLessThanOrEqual(1);
      await create.altText.fill(description);
      await create.submit.click();
      await page.waitForURL('**/app/account');

      const other = await secondPerson(browser, provider, baseURL, viewport);
      const feed = new FeedPage(other.page, 'discover');
      await feed.goto();
      const card = feed.post(caption);
      await expect(card.root.getByRole('img', { name: description })).toBeVisible();
      await expect(card.root.getByText(`Photo description: ${description}`)).toHaveCount(0);
      const showAlt = card.root.getByRole('button', { name: 'Show the photo description' });
      // A small badge in a 44 × 44 px tap target (issue 48; WCAG 2.5.5).
      const altBox = (await showAlt.boundingBox())!;
      expect(Math.min(altBox.width, altBox.height)).toBeGreaterThanOrEqual(44);
      await showAlt.click();
      await expect(card.root.getByText(description)).toBeVisible();
      await expect(card.root.getByRole('button', { name: /photo description/i }).and(card.root.getByText(/^(Edit|Add)/))).toHaveCount(0);
      await lookAt(other.page, `alt-text/alt-shown-${name}`);

      // Its author edits it; the other person sees the new one.
      const mine = new FeedPage(page, 'discover');
      await mine.goto();
      await mine.post(caption).root.getByRole('button', { name: 'Edit photo description' }).click();
      const dialog = page.getByRole('dialog', { name: 'Describe the photo' });
      const edited = uniqueText('An amber ale with a lime wedge');
      await dialog.getByLabel('Alt text').fill(edited);
      await dialog.getByRole('button', { name: 'Save' }).click();
      await expect(dialog).toHaveCount(0);
      await expect(mine.post(caption).root.getByRole('img', { name: edited })).toBeVisible();
      await feed.goto();
      await expect(feed.post(caption).root.getByRole('img', { name: edited })).toBeVisible();
      await other.context.close();
    });
  });
}
