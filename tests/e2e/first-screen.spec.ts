import type { Page } from '@playwright/test';
import { createPostViaApi, expect, joinViaApi, test, uniqueText } from './fixtures';
import { FeedPage } from './pages/feed-page';

// What index.html does before the app's code arrives (web/src/early-requests.ts): the opened
// screen's first API call, and on a feed the first photo. The app takes that answer instead of
// asking again (web/src/lib/api.ts keeps it by the call), and its first render is the screen with its posts. A
// refused one (401) still ends the session: auth.spec.ts's "a token the API refuses" opens
// Discover, so its early request is the one refused first.

declare global {
  interface Window {
    firstScreen?: { loadingSeen: boolean; postsSeen: boolean };
  }
}

/** From the first byte of every page load: did "Loading..." show in the app before any post did? */
function watchFirstScreen(page: Page) {
  return page.addInitScript(() => {
    const seen = { loadingSeen: false, postsSeen: false };
    window.firstScreen = seen;
    new MutationObserver(() => {
      const root = document.getElementById('root');
      if (!root || seen.postsSeen) return;
      if (root.querySelector('article')) seen.postsSeen = true;
      else if (root.textContent?.includes('Loading...')) seen.loadingSeen = true;
    }).observe(document, { childList: true, subtree: true, characterData: true });
  });
}

test.describe('the first screen', () => {
  test('Discover opens with its posts in the first render, from one request the page sent itself, and its first photo fetched once', async ({
    page,
    provider,
  }) => {
    await joinViaApi(page, provider);
    const newest = uniqueText('Newest, photo preloaded');
    await createPostViaApi(page, uniqueText('Older'));
    // Wide enough for the 768-px rendition: the preload must ask for the very file the card shows.
    await createPostViaApi(page, newest, false, { width: 1600, height: 1200 });

    const feedCalls: string[] = [];
    const photos: string[] = [];
    const cspErrors: string[] = [];
    page.on('request', (req) => {
      const url = new URL(req.url());
      if (url.pathname === '/api/discover-posts') feedCalls.push(url.search);
      if (/^\/media\/.+\/(medium|display)\.webp$/.test(url.pathname)) photos.push(url.pathname);
    });
    page.on('console', (msg) => msg.type() === 'error' && /Content.Security.Policy/i.test(msg.text()) && cspErrors.push(msg.text()));
    await watchFirstScreen(page);

    const discover = new FeedPage(page, 'discover');
    await discover.goto();
    const first = discover.post(newest);
    await expect(first.root).toBeVisible();
    await expect(first.root.getByRole('img', { name: /Photo/ })).toHaveJSProperty('complete', true);
    await page.waitForLoadState('networkidle');

    expect(feedCalls).toEqual(['?limit=10']);
    expect(await page.evaluate(() => window.firstScreen)).toEqual({ loadingSeen: false, postsSeen: true });
    // The newest post's photo once (preloaded, then drawn from that copy), the older one's once.
    const newestPhoto = await first.root.getByRole('img', { name: /Photo/ }).evaluate((img: HTMLImageElement) => new URL(img.currentSrc).pathname);
    expect(photos.filter((p) => p === newestPhoto)).toHaveLength(1);
    expect(cspErrors).toEqual([]);
  });
});

// The server puts the first render of the screens that need no data (`prerender` in
// web/src/app/screens.ts: the landing page, Create post, Search) in index.html
// (server/src/web/web-pages.ts): it shows before the app's code has arrived, and the app's
// first render takes its place. The service worker could answer the
// app's files from its cache, past page.route: blocked here.
test.describe('the page before the app’s code', () => {
  test.use({ serviceWorkers: 'block' });

  const withoutScripts = (page: Page) => page.route(/\/assets\/.+\.js$/, (route) => route.abort());
  const root = (page: Page) => page.locator('#root');

  test('shows the landing page, and signed in, create post with the navigation bar; never another session’s page', async ({ page, provider }) => {
    await withoutScripts(page);
    await page.goto('/');
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Shower Beer');
    await expect(root(page)).toContainText('Crack one open under the water.');
    // Nothing in it can be used before the app's code replaces it (inert).
    await expect(root(page).locator('[inert]')).toHaveCount(1);

    await page.unroute(/\/assets\/.+\.js$/);
    await joinViaApi(page, provider);
    await withoutScripts(page);
    await page.goto('/app/create-post');
    await expect(root(page).getByRole('heading', { level: 1 })).toHaveText('New post');
    await expect(root(page).getByText('Create', { exact: true })).toBeVisible();

    // Signed in, the landing page's prerender is not for this session: the page stays empty until the app sends them on.
    await page.goto('/');
    await expect(root(page)).toBeEmpty();
  });

  test('signed out, an app screen’s prerender is not shown; and once the app runs it alone is on the page', async ({ page, provider }) => {
    await withoutScripts(page);
    await page.goto('/app/create-post');
    await expect(root(page)).toBeEmpty();

    await page.unroute(/\/assets\/.+\.js$/);
    await joinViaApi(page, provider);
    await page.goto('/app/create-post');
    const caption = page.getByRole('textbox', { name: /caption/i });
    await caption.fill('Typed once the app runs');
    await expect(caption).toHaveValue('Typed once the app runs');
    await expect(page.getByRole('heading', { level: 1 })).toHaveCount(1);
    await expect(root(page).locator('[data-prerendered]')).toHaveCount(0);
  });
});
