import { readFile } from 'node:fs/promises';
// The zip reader of the server's tap tests: one reader for both, checked against yazl's output there.
import { readZip } from '../../server/test/export/unzip';
import { AccountPage } from './pages/account-page';
import { createPostViaApi, expect, joinViaApi, lookAt, test, uniqueText } from './fixtures';

test.describe('downloading my data', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('on a phone: the button shows progress, and the zip holds data.json with the post and its photo', async ({ page, provider }) => {
    const user = await joinViaApi(page, provider);
    const caption = uniqueText('Exported shower beer');
    await createPostViaApi(page, caption);

    const account = new AccountPage(page);
    await account.goto();
    await account.downloadData.scrollIntoViewIfNeeded();
    const box = await account.downloadData.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390, 'the button fits the phone’s width').toBe(true);

    // The answer is held back until the busy state has been seen; then it streams as usual.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/export', async (route) => {
      await held;
      await route.continue();
    });
    const downloading = page.waitForEvent('download');
    await account.downloadData.click();
    await expect(page.getByRole('button', { name: 'Preparing your data…' })).toBeDisabled();
    await expect(page.getByRole('status').getByText(/^Preparing… \d+ bytes$/)).toBeVisible();
    await lookAt(page, `export/account-export-progress`);
    release();

    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(new RegExp(`^shower-beer-${user.username}-\\d{4}-\\d{2}-\\d{2}\\.zip$`, 'i'));
    const zip = await readFile(await download.path());
    expect(zip.subarray(0, 4).toString('latin1')).toBe('PK\x03\x04');
    const entries = readZip(zip);
    expect(entries.map((e) => e.name)).toEqual(['data.json', expect.stringMatching(/^photos\/\d+\.webp$/)]);
    const data = JSON.parse(entries[0]!.data.toString('utf8')) as { format: string; profile: { username: string }; posts: { caption: string; altText: string | null; photo: string }[] };
    expect(data.format).toBe('shower-beer-export');
    expect(data.profile.username.toLowerCase()).toBe(user.username.toLowerCase());
    expect(data.posts.map((p) => [p.caption, p.altText])).toEqual([[caption, null]]);
    expect(data.posts[0]!.photo).toBe(entries[1]!.name);
    // The photo is the stored WebP (RIFF....WEBP), not a page or an error.
    expect(entries[1]!.data.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(entries[1]!.data.subarray(8, 12).toString('latin1')).toBe('WEBP');

    await expect(page.getByText(/^Downloaded shower-beer-.+\.zip \([\d.]+ (bytes|KB|MB)\)\.$/)).toBeVisible();
    await expect(account.downloadData).toBeEnabled();
    await lookAt(page, `export/account-export`);

    // A refusal is said in words, and the button is offered again.
    await page.unroute('**/api/export');
    await page.route('**/api/export', (route) =>
      route.fulfill({ status: 429, contentType: 'application/json', body: JSON.stringify({ error: 'rate_limited', message: 'Too many requests: try again in 3000 s.' }) }),
    );
    await account.downloadData.click();
    await expect(page.getByRole('alert')).toHaveText('You have downloaded your data several times in the last hour. Please try again later.');
    await expect(account.downloadData).toBeEnabled();
  });
});
