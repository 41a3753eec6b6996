import type { Page } from '@playwright/test';
import sharp from 'sharp';
import { AdminPage } from './pages/admin-page';
import { FeedPage } from './pages/feed-page';
import {
  accessToken,
  apiPerson,
  callAs,
  expect,
  operatorOrSkip,
  SIZES,
  secondPerson,
  signInAsOperator,
  joinViaApi,
  lookAt,
  test,
  uniqueText,
} from './fixtures';

// Issue 38: an album's author describes any of its photos anew; the history keeps every description.
test.describe.configure({ mode: 'parallel' });


/** An album straight through the API (presign → PUT → create-post), one colour per photo so the thumbnails differ. */
async function createAlbumViaApi(page: Page, caption: string, alts: string[], isAnonymous: boolean): Promise<number> {
  const headers = { authorization: `Bearer ${await accessToken(page)}` };
  const colours = ['#f5a524', '#3b6e8f', '#7a3b8f'];
  const photos = [];
  for (const [i, altText] of alts.entries()) {
    const presign = await page.request.post('/api/presign-upload', { headers, data: { fileName: `p${i}.jpg`, fileType: 'image/jpeg' } });
    expect(presign.ok()).toBe(true);
    const { uploadUrl, s3Key } = (await presign.json()) as { uploadUrl: string; s3Key: string };
    const image = await sharp({ create: { width: 96, height: 72, channels: 3, background: colours[i % colours.length]! } }).jpeg().toBuffer();
    expect((await page.request.put(uploadUrl, { headers: { 'content-type': 'image/jpeg' }, data: image })).ok()).toBe(true);
    photos.push({ s3Key, altText });
  }
  const created = await page.request.post('/api/create-post', { headers, data: { caption, isAnonymous, photos } });
  expect(created.status()).toBe(201);
  return ((await created.json()) as { postid: number }).postid;
}

async function apiText(page: Page, path: string): Promise<string> {
  const res = await page.request.get(path, { headers: { authorization: `Bearer ${await accessToken(page)}` } });
  expect(res.status(), path).toBe(200);
  return res.text();
}

for (const { name, viewport } of SIZES) {
  test.describe(`album edits on a ${name}`, () => {
    test.use({ viewport });

    test("an anonymous album's author edits the caption and the second photo's description; nobody is named", async ({ page, provider, axe }) => {
      const me = await joinViaApi(page, provider);
      const before = uniqueText('Two from the tap room');
      const postId = await createAlbumViaApi(page, before, ['Amber lager on the bar', 'Foam on the rim'], true);
      const feed = new FeedPage(page, 'discover');
      await feed.goto();
      const card = await feed.find(before);
      await expect(card.header()).toContainText('Anonymous Beer Lover');

      await card.root.getByRole('button', { name: 'Edit post' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit post' });
      await expect(dialog.getByLabel('Caption')).toHaveValue(before);
      await expect(dialog.getByLabel('Photo 1 of 2')).toHaveValue('Amber lager on the bar');
      await expect(dialog.getByLabel('Photo 2 of 2')).toHaveValue('Foam on the rim');
      // Each field sits beside its photo's thumbnail, loaded.
      const thumbs = dialog.locator('img');
      await expect(thumbs).toHaveCount(2);
      for (const i of [0, 1]) await expect.poll(() => thumbs.nth(i).evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
      await axe(page, 'album edit dialog', 'dialog[open]');

      const after = `${before}, at closing time`;
      await dialog.getByLabel('Caption').fill(after);
      await dialog.getByLabel('Photo 2 of 2').fill('A thick head of foam on the rim');
      await lookAt(page, `album-edits/edit-dialog-${name}`);
      await dialog.getByRole('button', { name: 'Save' }).click();
      await expect(page.locator('dialog')).toHaveCount(0);

      const edited = feed.post(after);
      await expect(edited.root.getByText(after)).toBeVisible();
      await expect(edited.root.getByRole('button', { name: /^Edited \S/ })).toBeVisible();
      await expect(edited.header()).toContainText('Anonymous Beer Lover');
      // The second photo's description is what the carousel now says of it.
      await edited.carousel.getByRole('button', { name: 'Next photo' }).click();
      await expect(edited.carousel.getByRole('img', { name: 'A thick head of foam on the rim' })).toBeVisible();
      expect(await page.locator('body').innerText()).not.toContain(me.username);
      // Her own history answer names nobody either: a version carries no author.
      expect(await apiText(page, `/api/post-versions?postId=${postId}`)).not.toContain(me.username);
    });

    // Starts from the edit above made through the API (the dialog is walked there): what is
    // checked here is what someone else sees of it.
    test("someone else sees an anonymous album's earlier version, each photo's description then, and nobody named", async ({
      page,
      provider,
      browser,
      baseURL,
      axe,
    }) => {
      const me = await joinViaApi(page, provider);
      const before = uniqueText('Two from the tap room');
      const postId = await createAlbumViaApi(page, before, ['Amber lager on the bar', 'Foam on the rim'], true);
      const after = `${before}, at closing time`;
      expect(await callAs(page, 'PATCH', `/api/post?postId=${postId}`, { caption: after, photos: [{ index: 1, altText: 'A thick head of foam on the rim' }] })).toMatchObject({
        caption: after,
      });

      // Someone else: "Edited", and the earlier version with each photo's description then.
      const other = await secondPerson(browser, provider, baseURL, viewport);
      const theirs = new FeedPage(other.page, 'discover');
      await theirs.goto();
      const seen = await theirs.find(after);
      await expect(seen.header()).toContainText('Anonymous Beer Lover');
      await seen.root.getByRole('button', { name: /^Edited/ }).click();
      const history = other.page.getByRole('dialog', { name: 'Edit history' });
      const versions = history.getByRole('list', { name: 'Versions, newest first' }).locator(':scope > li');
      await expect(versions).toHaveCount(2);
      await expect(versions.nth(0)).toContainText(after);
      await expect(versions.nth(0)).toContainText('Photo 2 of 2: A thick head of foam on the rim');
      await expect(versions.nth(1)).toContainText(before);
      await expect(versions.nth(1)).toContainText('Photo 2 of 2: Foam on the rim');
      await expect(versions.nth(1)).toContainText('Photo 1 of 2: Amber lager on the bar');
      await axe(other.page, 'album edit history', 'dialog[open]');
      await lookAt(other.page, `album-edits/history-${name}`);
      expect(await other.page.locator('body').innerText()).not.toContain(me.username);

      for (const path of ['/api/discover-posts?limit=50', `/api/post-versions?postId=${postId}`]) {
        const body = await apiText(other.page, path);
        expect(body, path).not.toContain(me.username);
        if (path.startsWith('/api/post-versions')) expect(body).toContain('Foam on the rim');
      }
      await other.context.close();
    });

    test("the photo in view is described anew from the card; an operator sees every description the reported album had", async ({
      page,
      provider,
      browser,
      baseURL,
    }) => {
      const operator = operatorOrSkip(provider);
      await joinViaApi(page, provider);
      const caption = uniqueText('Two at the beer garden');
      const postId = await createAlbumViaApi(page, caption, ['Benches under the chestnuts', 'Buy cheap pills at spam.example'], false);
      // Reported through the API: the report dialog is moderation.spec.ts's subject.
      await (await apiPerson(provider)).call('POST', '/api/reports', { kind: 'post', id: postId, reason: 'spam' });

      const feed = new FeedPage(page, 'discover');
      await feed.goto();
      const card = await feed.find(caption);
      await card.carousel.getByRole('button', { name: 'Next photo' }).click();
      await card.root.getByRole('button', { name: 'Edit photo description' }).click();
      const describe = page.getByRole('dialog', { name: 'Describe photo 2 of 2' });
      await expect(describe.getByLabel('Alt text')).toHaveValue('Buy cheap pills at spam.example');
      await describe.getByLabel('Alt text').fill('A pretzel on a paper plate');
      await describe.getByRole('button', { name: 'Save' }).click();
      await expect(page.locator('dialog')).toHaveCount(0);
      await expect(card.carousel.getByRole('img', { name: 'A pretzel on a paper plate' })).toBeVisible();
      await expect(card.root.getByRole('button', { name: /^Edited/ })).toBeVisible();

      const opContext = await browser.newContext({ baseURL, viewport });
      const opPage = await opContext.newPage();
      await signInAsOperator(opPage, provider, operator);
      const admin = new AdminPage(opPage);
      await admin.goto();
      const report = admin.report(caption);
      const history = report.getByRole('list', { name: 'Earlier versions, newest first' });
      await expect(history).toContainText('Photo 1 of 2 description: Benches under the chestnuts');
      await expect(history).toContainText('Photo 2 of 2 description: Buy cheap pills at spam.example');
      // Every photo of the album is there to judge, not only the first.
      const others = report.getByRole('list', { name: "The album's other photos" });
      await expect(others.getByRole('img')).toHaveCount(1);
      await expect(others.getByRole('img', { name: 'Photo 2: A pretzel on a paper plate' })).toBeVisible();
      await report.scrollIntoViewIfNeeded();
      await lookAt(opPage, `album-edits/admin-history-${name}`);
      await opContext.close();
    });
  });
}
