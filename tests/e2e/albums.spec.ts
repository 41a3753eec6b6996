import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { CreatePostPage } from './pages/create-post-page';
import { FeedPage } from './pages/feed-page';
import { accessToken, collectDialogs, expect, joinViaApi, lookAt, makeImage, SIZES, test, uniqueText } from './fixtures';

// Issue 38, parts 1 and 2: an album made on the create screen (chosen together and one at a time,
// described, reordered), then seen as a carousel on Discover and marked on the profile grid.

/** An album straight through the API with the signed-in page's token (presign → PUT each photo → create-post). */
async function createAlbumViaApi(page: Page, caption: string, photos: { file: string; altText: string }[]): Promise<void> {
  const headers = { authorization: `Bearer ${await accessToken(page)}` };
  const uploaded = [];
  for (const [i, { file, altText }] of photos.entries()) {
    const presign = await page.request.post('/api/presign-upload', { headers, data: { fileName: `p${i}.jpg`, fileType: 'image/jpeg' } });
    expect(presign.ok()).toBe(true);
    const { uploadUrl, s3Key } = (await presign.json()) as { uploadUrl: string; s3Key: string };
    expect((await page.request.put(uploadUrl, { headers: { 'content-type': 'image/jpeg' }, data: readFileSync(file) })).ok()).toBe(true);
    uploaded.push({ s3Key, altText });
  }
  const created = await page.request.post('/api/create-post', { headers, data: { caption, isAnonymous: false, photos: uploaded } });
  expect(created.status()).toBe(201);
}

for (const { name, viewport } of SIZES) {
  test.describe(`albums on a ${name}`, () => {
    test.use({ viewport });

    test('a 3-photo album is described, reordered, and posted in that order', async ({ page, provider, axe }) => {
      const dialogs = collectDialogs(page);
      await joinViaApi(page, provider);
      const create = new CreatePostPage(page);
      await create.goto();

      // Two chosen together, a third added afterwards; each its own shape.
      const lake = await makeImage(undefined, 480, 360);
      const heron = await makeImage(undefined, 300, 500);
      const sunset = await makeImage(undefined, 640, 300);
      await create.fileInput.setInputFiles([lake, heron]);
      await expect(create.albumPhotos).toHaveCount(2);
      await create.addPhotos.setInputFiles(sunset);
      await expect(create.albumPhotos).toHaveCount(3);
      await expect(create.preview).toHaveCount(0);

      await create.description(1).fill('The lake at dawn');
      await create.description(2).fill('A heron standing in the reeds');
      await create.description(3).fill('Sunset over the jetty');

      // By keyboard: the third photo two places earlier; the focus follows it.
      await create.moveButton(3, 'earlier').focus();
      await page.keyboard.press('Enter');
      await expect(create.moveButton(2, 'earlier')).toBeFocused();
      await page.keyboard.press('Enter');
      // At the top its "earlier" is disabled: the focus is on its "later".
      await expect(create.moveButton(1, 'later')).toBeFocused();
      expect(await create.descriptions()).toEqual(['Sunset over the jetty', 'The lake at dawn', 'A heron standing in the reeds']);
      await expect(page.getByText('Photo moved to position 1 of 3.')).toBeAttached();

      if (name === 'desktop') {
        // By drag: the heron onto the first place.
        await create.albumPhotos.nth(2).dragTo(create.albumPhotos.nth(0));
        expect(await create.descriptions()).toEqual(['A heron standing in the reeds', 'Sunset over the jetty', 'The lake at dawn']);
        // And back, with the buttons, to the order the rest of the test expects.
        await create.moveButton(1, 'later').click();
      }
      expect(await create.descriptions()).toEqual(
        name === 'desktop'
          ? ['Sunset over the jetty', 'A heron standing in the reeds', 'The lake at dawn']
          : ['Sunset over the jetty', 'The lake at dawn', 'A heron standing in the reeds'],
      );
      const order = await create.descriptions();

      const caption = uniqueText('Three from the lake');
      await create.caption.fill(caption);
      await axe(page, 'create post, an album');
      if (name === 'phone') await lookAt(page, `albums/create-album-phone`, { fullPage: true });
      else await lookAt(page, `albums/create-album-desktop`, { fullPage: true });
      await create.submit.click();
      await page.waitForURL('**/app/account');
      expect(dialogs).toEqual([]);

      // The profile grid: the first photo with an album marker; opened, the post is a carousel too.
      const tile = page.getByRole('button', { name: new RegExp(`^Open post: ${caption}\\. Album of 3 photos\\.`) });
      await expect(tile).toBeVisible();
      await expect(tile.getByRole('img')).toHaveAttribute('alt', order[0]!);
      await tile.click();
      const opened = page.getByRole('dialog').getByRole('region', { name: 'Album of 3 photos' });
      await expect(opened).toBeVisible();
      await opened.getByRole('button', { name: 'Next photo' }).click();
      await expect(opened.getByRole('img')).toHaveAttribute('alt', order[1]!);
      await page.keyboard.press('Escape');
      await expect(page.getByRole('dialog')).toHaveCount(0);

    });

    test('an album is browsed as a carousel: buttons, arrow keys and swipes', async ({ page, provider, axe }) => {
      await joinViaApi(page, provider);
      // Posted through the API (posting it is the test above): the sunset (640×300) leads.
      const order = ['Sunset over the jetty', 'The lake at dawn', 'A heron standing in the reeds'];
      const caption = uniqueText('Three from the lake');
      await createAlbumViaApi(page, caption, [
        { file: await makeImage(undefined, 640, 300), altText: order[0]! },
        { file: await makeImage(undefined, 480, 360), altText: order[1]! },
        { file: await makeImage(undefined, 300, 500), altText: order[2]! },
      ]);

      const discover = new FeedPage(page, 'discover');
      await discover.goto();
      const card = await discover.find(caption);
      const carousel = card.carousel;
      await expect(carousel).toBeVisible();
      await carousel.scrollIntoViewIfNeeded();
      const shown = carousel.getByRole('img');
      await expect(carousel.getByText('1 of 3')).toBeAttached();
      await expect(shown).toHaveAttribute('alt', order[0]!);
      // Only the photo shown and the next one are in the page (and so fetched).
      await expect(carousel.locator('img')).toHaveCount(2);
      const frame = (await carousel.boundingBox())!;
      // The sunset (640×300, 2.13:1) leads: its frame is clamped to 1.91:1, as a single photo's.
      expect(frame.width / frame.height).toBeCloseTo(1.91, 1);

      // The buttons.
      await carousel.getByRole('button', { name: 'Next photo' }).click();
      await expect(carousel.getByText('2 of 3')).toBeAttached();
      await expect(shown).toHaveAttribute('alt', order[1]!);
      await expect(carousel.locator('img')).toHaveCount(3);
      // The frame keeps the first photo's shape whichever photo it shows.
      expect((await carousel.boundingBox())!.height).toBeCloseTo(frame.height, 0);

      // The arrow keys when focused.
      await carousel.focus();
      await page.keyboard.press('ArrowRight');
      await expect(carousel.getByText('3 of 3')).toBeAttached();
      await expect(shown).toHaveAttribute('alt', order[2]!);
      await expect(carousel.getByRole('button', { name: 'Next photo' })).toHaveCount(0);
      await page.keyboard.press('ArrowRight');
      await expect(carousel.getByText('3 of 3')).toBeAttached();
      await page.keyboard.press('ArrowLeft');
      await expect(carousel.getByText('2 of 3')).toBeAttached();

      // A swipe (pointer events): right to left is the next photo, left to right the one before.
      const box = (await carousel.boundingBox())!;
      const y = box.y + box.height / 2;
      const swipe = async (from: number, to: number) => {
        await page.mouse.move(box.x + box.width * from, y);
        await page.mouse.down();
        for (let step = 1; step <= 8; step++) await page.mouse.move(box.x + box.width * (from + ((to - from) * step) / 8), y);
        await page.mouse.up();
      };
      await swipe(0.8, 0.2);
      await expect(carousel.getByText('3 of 3')).toBeAttached();
      await expect(shown).toHaveAttribute('alt', order[2]!);
      await swipe(0.2, 0.8);
      await swipe(0.2, 0.8);
      await expect(carousel.getByText('1 of 3')).toBeAttached();
      await expect(shown).toHaveAttribute('alt', order[0]!);
      // A short drag is not a swipe.
      await swipe(0.5, 0.45);
      await expect(carousel.getByText('1 of 3')).toBeAttached();

      await carousel.getByRole('button', { name: 'Next photo' }).click();
      await expect(carousel.getByText('2 of 3')).toBeAttached();
      await axe(page, 'discover, an album');
      await page.waitForTimeout(350); // the slide's settling transition
      await lookAt(card.root, `albums/carousel-${name}`);
    });
  });
}

test('the create screen takes at most 10 photos, says so, and a removed one makes room again', async ({ page, provider }) => {
  const dialogs = collectDialogs(page);
  await joinViaApi(page, provider);
  const create = new CreatePostPage(page);
  await create.goto();
  const files: string[] = [];
  for (let i = 0; i < 11; i++) files.push(await makeImage(undefined, 120, 90));
  await create.fileInput.setInputFiles(files.slice(0, 4));
  await expect(create.albumPhotos).toHaveCount(4);
  await create.addPhotos.setInputFiles(files.slice(4));
  await expect(create.albumPhotos).toHaveCount(10);
  await expect.poll(() => dialogs).toEqual(['A post holds up to 10 photos: only the first 6 of these were added.']);
  await expect(page.getByRole('button', { name: 'Add more photos' })).toHaveCount(0);

  await page.getByRole('button', { name: 'Remove photo 10' }).click();
  await expect(create.albumPhotos).toHaveCount(9);
  await expect(page.getByText('Photo 10 removed. 9 photos left.')).toBeAttached();
  await expect(page.getByRole('button', { name: 'Add more photos' })).toBeVisible();
  // Down to one photo, the screen is the single photo's again.
  for (let n = 9; n > 1; n--) await page.getByRole('button', { name: `Remove photo ${n}` }).click();
  await expect(create.preview).toBeVisible();
  await expect(create.removeImage).toBeVisible();
  await expect(create.altText).toBeVisible();
});
