import { AccountPage } from './pages/account-page';
import { CreatePostPage } from './pages/create-post-page';
import { FeedPage } from './pages/feed-page';
import {
  collectDialogs,
  createPostViaApi,
  expect,
  makeHugeFile,
  makeImage,
  secondPerson,
  joinViaApi,
  test,
  uniqueText,
} from './fixtures';

test.describe('posts', () => {
  test('a post with an image and caption shows on the own profile and in Discover', { tag: '@any-provider' }, async ({ page, provider }) => {
    await joinViaApi(page, provider);
    const account = new AccountPage(page);
    await expect(page.getByText('No posts yet', { exact: true })).toBeVisible();
    await expect(page.getByText('Share your first shower beer moment!')).toBeVisible();
    await expect(account.stat('Posts')).toHaveText('0');

    const caption = uniqueText('Cold one after the run');
    const create = new CreatePostPage(page);
    await create.goto();
    await expect(create.fileInput).toHaveAttribute('accept', 'image/*');
    await create.create(await makeImage(), caption);

    await expect(account.tile(caption)).toBeVisible();
    await expect(account.stat('Posts')).toHaveText('1');
    await expect(account.tile(caption)).not.toContainText('Anonymous');
    // The grid shows the small thumbnail.
    await expect(account.tile(caption).getByRole('img')).toHaveAttribute('src', /thumb/);

    const discover = new FeedPage(page, 'discover');
    await discover.goto();
    const card = discover.post(caption);
    await expect(card.root).toBeVisible();
    // Minutes old: a relative time, as Instagram and Mastodon say it, with the local date in its title (issue 48).
    const posted = card.root.locator('time').first();
    await expect(posted).toHaveText(/^(now|\d+ min)$/);
    await expect(posted).toHaveAttribute('title', new RegExp(`^${(await page.evaluate(() => new Date().toLocaleDateString())).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}, `));
    await expect(card.likesText).toHaveText('0 likes');
    // Display image with its size reserved.
    const img = card.root.getByRole('img', { name: `Photo: ${caption}` });
    await expect(img).toHaveAttribute('width', /\d+/);
    await expect(img).toHaveAttribute('height', /\d+/);
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBeGreaterThan(0);
  });

  test('create-post states and every validation message', async ({ page, provider }) => {
    await joinViaApi(page, provider);
    const dialogs = collectDialogs(page);
    const create = new CreatePostPage(page);
    await create.goto();

    await expect(create.anonymous).not.toBeChecked();
    await expect(create.anonymousHint).toBeVisible();
    await expect(create.counter).toHaveText('0/2200');
    await expect(create.submit).toHaveText('Share Shower Beer');
    await expect(create.submit).toBeDisabled();
    await expect(create.headerShare).toBeDisabled();

    // Asking to share without a file: the alert of the spec.
    await create.caption.fill('Only words');
    await expect(create.submit).toBeDisabled();
    await create.caption.press('Control+Enter');
    await expect.poll(() => dialogs).toEqual(['Please select a file and enter a caption.']);

    // Too large a file.
    await create.choose(makeHugeFile());
    await expect.poll(() => dialogs.length).toBe(2);
    expect(dialogs[1]).toBe('File is too large! Max 100MB.');
    await expect(create.preview).toHaveCount(0);

    // A file, then a blank caption: still disabled.
    await create.choose(await makeImage());
    await expect(create.preview).toBeVisible();
    await create.caption.fill('   ');
    await expect(create.submit).toBeDisabled();
    await create.caption.fill('Now it counts');
    await expect(create.submit).toBeEnabled();
    await expect(create.headerShare).toBeEnabled();

    // Remove Image takes the file away again.
    await create.removeImage.click();
    await expect(create.preview).toHaveCount(0);
    await expect(create.submit).toBeDisabled();

    // Caption: at most 2200 characters, counter warns above 2000.
    await create.caption.fill('x'.repeat(2000));
    await expect(create.counter).toHaveText('2000/2200');
    const normalColor = await create.counter.evaluate((el) => getComputedStyle(el).color);
    await create.caption.fill('x'.repeat(2001));
    await expect(create.counter).toHaveText('2001/2200');
    expect(await create.counter.evaluate((el) => getComputedStyle(el).color)).not.toBe(normalColor);
    await create.caption.fill('x'.repeat(2300));
    await expect(create.counter).toHaveText('2200/2200');
  });

  test('sharing shows its busy state; a failure alerts and leaves the form as it was', async ({ page, provider }) => {
    await joinViaApi(page, provider);
    const dialogs = collectDialogs(page);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/api/create-post', async (route) => {
      await held;
      await route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"x","message":"boom"}' });
    });
    const create = new CreatePostPage(page);
    await create.goto();
    await create.choose(await makeImage());
    await create.caption.fill('This one will fail');
    await create.anonymous.check();
    await create.submit.click();
    await expect(create.submit).toHaveText('Sharing Your Moment...');
    await expect(create.submit).toBeDisabled();
    await expect(create.headerShare).toBeDisabled();
    release();
    await expect.poll(() => dialogs).toEqual(['Failed to create post. Please try again.']);
    await expect(create.submit).toHaveText('Share Shower Beer');
    await expect(create.submit).toBeEnabled();
    await expect(create.caption).toHaveValue('This one will fail');
    await expect(create.anonymous).toBeChecked();
    await expect(create.preview).toBeVisible();
    await expect(page).toHaveURL(/\/app\/create-post$/);
  });

  test('an upload the storage refuses (tampered link) alerts, and sharing again works', async ({ page, provider }) => {
    await joinViaApi(page, provider);
    const dialogs = collectDialogs(page);
    // The presign answer reaches the page with one character of its signature changed: the storage
    // itself must refuse the PUT (the local driver with 403; Swift with a 403 the browser only sees
    // as a failed request, since its error answers carry no CORS headers).
    await page.route('**/api/presign-upload', async (route) => {
      const answer = await route.fetch();
      const body = (await answer.json()) as { uploadUrl: string; s3Key: string };
      const url = new URL(body.uploadUrl);
      const param = ['X-Amz-Signature', 'sig'].find((p) => url.searchParams.has(p));
      if (!param) throw new Error(`no signature to tamper with in ${url.origin}${url.pathname}`);
      const sig = url.searchParams.get(param)!;
      url.searchParams.set(param, (sig[0] === 'A' || sig[0] === 'a' ? 'b' : 'a') + sig.slice(1));
      await route.fulfill({ response: answer, json: { ...body, uploadUrl: url.toString() } });
    });
    const puts: string[] = [];
    page.on('requestfinished', async (req) => {
      if (req.method() === 'PUT') puts.push(String((await req.response())?.status()));
    });
    page.on('requestfailed', (req) => {
      if (req.method() === 'PUT') puts.push('failed');
    });

    const create = new CreatePostPage(page);
    await create.goto();
    await create.choose(await makeImage());
    const caption = uniqueText('Refused at the door');
    await create.caption.fill(caption);
    await create.submit.click();
    await expect.poll(() => dialogs).toEqual(['Failed to create post. Please try again.']);
    await expect.poll(() => puts, { message: 'the storage refused the PUT' }).toEqual([expect.stringMatching(/^(403|failed)$/)]);
    // Nothing lost: the form is as it was and can be sent again.
    await expect(page).toHaveURL(/\/app\/create-post$/);
    await expect(create.submit).toHaveText('Share Shower Beer');
    await expect(create.submit).toBeEnabled();
    await expect(create.caption).toHaveValue(caption);
    await expect(create.preview).toBeVisible();

    // With the link as the server signed it, the same form shares.
    await page.unroute('**/api/presign-upload');
    await create.submit.click();
    await page.waitForURL('**/app/account');
    await expect(new AccountPage(page).tile(caption)).toBeVisible();
    expect(dialogs).toHaveLength(1);
  });

  test('the upload goes straight to the presigned address without the bearer token', async ({ page, provider }) => {
    await joinViaApi(page, provider);
    const puts: { auth: string | undefined; type: string | undefined }[] = [];
    page.on('request', (req) => {
      if (req.method() === 'PUT') puts.push({ auth: req.headers()['authorization'], type: req.headers()['content-type'] });
    });
    const create = new CreatePostPage(page);
    await create.goto();
    await create.create(await makeImage(), uniqueText('Presigned'));
    expect(puts).toEqual([{ auth: undefined, type: 'image/jpeg' }]);
  });

  test('an anonymous post hides its author from others and is badged on the owner grid', async ({
    page,
    provider,
    browser,
    baseURL,
  }) => {
    const owner = await joinViaApi(page, provider);
    const caption = uniqueText('Nobody knows it was me');
    await new CreatePostPage(page).goto();
    await new CreatePostPage(page).create(await makeImage(), caption, true);
    const account = new AccountPage(page);
    await expect(account.tile(caption)).toContainText('Anonymous');

    const other = await secondPerson(browser, provider, baseURL);
    const discover = new FeedPage(other.page, 'discover');
    await discover.goto();
    // Another test may post a page's worth meanwhile (CI: social.spec's twelve, once).
    const card = await discover.find(caption);
    await expect(card.header()).toContainText('Anonymous Beer Lover');
    await expect(card.root.getByText(`Anonymous ${caption}`)).toBeVisible();
    await expect(card.root).not.toContainText(owner.username);
    await other.context.close();
  });

  test('the author deletes their post (after confirming)', async ({ page, provider }) => {
    await joinViaApi(page, provider);
    const caption = uniqueText('Short-lived');
    await createPostViaApi(page, caption);
    const dialogs = collectDialogs(page);
    const discover = new FeedPage(page, 'discover');
    await discover.goto();
    await discover.post(caption).deletePostButton.click();
    await expect(discover.post(caption).root).toHaveCount(0);
    expect(dialogs).toEqual(['Delete this post? This cannot be undone.']);
    const account = new AccountPage(page);
    await account.goto();
    await expect(account.stat('Posts')).toHaveText('0');
  });

  test('Discover shows its empty state', async ({ page, provider }) => {
    await joinViaApi(page, provider);
    // The shared server may already hold posts: answer this one page with none.
    await page.route('**/api/discover-posts*', (route) => route.fulfill({ json: [] }));
    await new FeedPage(page, 'discover').goto();
    await expect(page.getByText('No posts yet!')).toBeVisible();
    await expect(page.getByText('Be the first to share your shower beer moment.')).toBeVisible();
  });
});
