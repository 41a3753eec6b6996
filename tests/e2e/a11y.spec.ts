import type { Browser, Locator, Page } from '@playwright/test';
import { useTheme } from './axe';
import { AccountPage } from './pages/account-page';
import { AdminPage } from './pages/admin-page';
import { CreatePostPage } from './pages/create-post-page';
import { FeedPage } from './pages/feed-page';
import { LoginPage } from './pages/login-page';
import type { PostCard } from './pages/post-card';
import { ProfilePage } from './pages/profile-page';
import { SearchPage } from './pages/search-page';
import type { ProviderKind } from './pages/sign-in-page';
import {
  accessToken,
  createPostViaApi,
  expect,
  joinViaApi,
  lookAt,
  makeImage,
  newUser,
  operatorOrSkip,
  PHONE_AND_DESKTOP,
  secondPerson,
  signInAsOperator,
  SIZES,
  test,
  uniqueText,
} from './fixtures';

// Issue 20: every screen, in light and dark, on a phone and a desktop, with the WCAG 2.2 AA rules.
// The tests are independent (each signs its own people up): both workers share them.
test.describe.configure({ mode: 'parallel' });
test.skip(
  !!process.env.E2E_BASE_URL,
  'Accessibility belongs to the web app and the embedded sign-in pages, not to the server or provider they run against: checked once, in the lane whose server this config starts',
);

/** An API call with the signed-in page's token (for the content a screen needs; the screens themselves are used as people do). */
async function call(page: Page, method: 'GET' | 'POST' | 'PATCH', path: string, data?: unknown): Promise<unknown> {
  const token = await accessToken(page);
  const res = await page.request.fetch(path, { method, headers: { authorization: `Bearer ${token}` }, data });
  expect(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`).toBe(true);
  return res.json();
}

async function newestOwnPostId(page: Page): Promise<number> {
  const { posts } = (await call(page, 'GET', '/api/user-posts?limit=1')) as { posts: { postid: number }[] };
  return posts[0]!.postid;
}

/**
 * The content the signed-in screens show: I sign up and post a photo with a description;
 * someone else posts one, likes and comments on mine and follows me (my notifications);
 * I comment on theirs.
 */
async function withContent(
  page: Page,
  provider: ProviderKind,
  browser: Browser,
  baseURL: string | undefined,
  viewport: { width: number; height: number },
) {
  const me = await joinViaApi(page, provider);
  const myCaption = uniqueText('Axe-tested lager');
  await createPostViaApi(page, myCaption);
  const myPost = await newestOwnPostId(page);
  await call(page, 'PATCH', `/api/post?postId=${myPost}`, { altText: 'A frosty lager on the shower shelf' });

  const other = await secondPerson(browser, provider, baseURL, viewport);
  const theirCaption = uniqueText('Axe-tested stout');
  await createPostViaApi(other.page, theirCaption);
  const theirPost = await newestOwnPostId(other.page);
  await call(other.page, 'POST', '/api/like', { postId: myPost });
  await call(other.page, 'POST', '/api/comment', { postId: myPost, comment: uniqueText('Cheers to that') });
  await call(other.page, 'POST', `/api/account/${encodeURIComponent(me.username)}/follow`);
  const otherName = other.user.username;
  await other.context.close();
  await call(page, 'POST', '/api/comment', { postId: theirPost, comment: 'That looks ice cold' });
  return { me, myCaption, theirCaption, otherName };
}

/** A post's card on Discover, however many pages down other tests' posts have pushed it. */
async function onDiscover(page: Page, caption: string): Promise<PostCard> {
  const discover = new FeedPage(page, 'discover');
  await discover.goto();
  return discover.find(caption);
}

/**
 * Presses Tab until the target has focus (it must be in the page's tab order); returns how
 * many presses it took. On the way, no focused control may sit under the navigation bar
 * (fixed at the bottom on a phone, sticky at the top on a desktop: WCAG 2.4.11).
 */
async function tabTo(page: Page, target: Locator, max = 120): Promise<number> {
  for (let presses = 1; presses <= max; presses++) {
    await page.keyboard.press('Tab');
    const hidden = await page.evaluate(() => {
      const el = document.activeElement;
      const bar = document.querySelector('header:has(nav[aria-label="Main"])');
      if (!el || !bar || bar.contains(el) || el === document.body) return null;
      const [r, b] = [el.getBoundingClientRect(), bar.getBoundingClientRect()];
      return r.bottom > b.top && r.top < b.bottom ? `${el.outerHTML.slice(0, 120)} is under the navigation bar` : null;
    });
    expect(hidden, `after Tab ${presses}`).toBeNull();
    if (await target.evaluate((el) => el === document.activeElement)) return presses;
  }
  throw new Error(`Tab never reached ${target.toString()} in ${max} presses`);
}

/** The element has focus from the keyboard and shows the focus ring (a solid outline of at least 2px). */
async function expectFocusRing(target: Locator): Promise<void> {
  await expect(target).toBeFocused();
  const ring = await target.evaluate((el) => {
    const style = getComputedStyle(el);
    return { focusVisible: el.matches(':focus-visible'), style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
  });
  expect(ring).toEqual({ focusVisible: true, style: 'solid', width: expect.any(Number) });
  expect(ring.width).toBeGreaterThanOrEqual(2);
}

for (const { name, viewport } of SIZES) {
  test.describe(`accessibility on a ${name}`, () => {
    test.use({ viewport });

    test('signed out: the start page, the sign-in and sign-up pages (with errors) and a page that does not exist', async ({
      page,
      provider,
      axe,
    }) => {
      const login = new LoginPage(page);
      await login.goto();
      await axe(page, 'start page');

      await login.startLogin();
      await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
      test.skip(provider !== 'embedded', 'the other providers’ pages are theirs');
      await axe(page, 'provider: sign in');

      await page.getByRole('link', { name: 'Create account' }).click();
      await expect(page.getByRole('heading', { name: 'Create account' })).toBeVisible();
      await axe(page, 'provider: create account');
      await page.getByLabel('Username').fill(newUser().username.slice(0, 2));
      await page.getByLabel('Email').fill('not an email');
      await page.getByLabel('Password').fill('short');
      await page.getByRole('button', { name: 'Create account' }).click();
      await expect(page.getByRole('alert')).toBeVisible();
      await axe(page, 'provider: create account, with errors');

      // The server answers only / and /app/* with the app: an unknown address outside /app is
      // the app's own not-found screen when reached inside the app (a link, history).
      await login.goto();
      await page.evaluate(() => {
        history.pushState(null, '', '/no-such-page');
        dispatchEvent(new PopStateEvent('popstate'));
      });
      await expect(page.getByText('Page not found')).toBeVisible();
      await axe(page, 'not found (signed out)');
    });

    // The signed-in screens, in four tests of their own so none comes near the timeout on a slow
    // runner; each makes its people and their content through the API (withContent).
    test('signed in: my profile and a post opened from it by keyboard', async ({ page, provider, browser, baseURL, axe }) => {
      const { myCaption } = await withContent(page, provider, browser, baseURL, viewport);

      // Own profile, and a post opened from the grid by keyboard: Escape closes it and focus is back on the tile.
      const account = new AccountPage(page);
      await account.goto();
      // (Its image is named by the description now, so the tile is found by its own name.)
      const tile = page.getByRole('button', { name: `Open post: ${myCaption}.` });
      await expect(tile).toBeVisible();
      await axe(page, 'account');
      await tile.focus();
      await page.keyboard.press('Enter');
      const postDialog = page.getByRole('dialog', { name: 'Post' });
      await expect(postDialog.getByText('Cheers to that')).toBeVisible();
      await expect(postDialog.getByRole('button', { name: 'Show the photo description' })).toBeVisible();
      await expect(postDialog.locator(':focus')).toHaveCount(1);
      await axe(page, 'post dialog', 'dialog[open]');
      // Focus stays in the dialog: round and round its controls, never onto the page behind
      // (past the last one the browser may hold it for a step on the document itself).
      for (let i = 0; i < 14; i++) {
        await page.keyboard.press('Tab');
        expect(await postDialog.evaluate((d) => d.contains(document.activeElement) || document.activeElement === document.body)).toBe(true);
      }
      await page.keyboard.press('Escape');
      await expect(postDialog).toHaveCount(0);
      await expect(tile).toBeFocused();
    });

    test('signed in: Discover with the post menu and the report dialog, by keyboard', async ({ page, provider, browser, baseURL, axe }) => {
      const { theirCaption } = await withContent(page, provider, browser, baseURL, viewport);

      // Discover: the ⋯ menu and the report dialog, by keyboard; Escape gives focus back to ⋯.
      const theirs = await onDiscover(page, theirCaption);
      await expect(theirs.comment('That looks ice cold')).toBeVisible();
      await axe(page, 'discover');
      await theirs.moreOptions.focus();
      await page.keyboard.press('Enter');
      const reportItem = theirs.root.getByRole('button', { name: 'Report post' });
      await expect(reportItem).toBeFocused();
      await axe(page, 'post menu', '[role="group"][aria-label="Post options"]');
      await page.keyboard.press('Enter');
      const reportDialog = page.getByRole('dialog', { name: 'Report post' });
      await expect(reportDialog.getByRole('radio', { name: 'Spam' })).toBeVisible();
      await axe(page, 'report dialog', 'dialog[open]');
      await page.keyboard.press('Escape');
      await expect(reportDialog).toHaveCount(0);
      await expect(theirs.moreOptions).toBeFocused();
    });

    test('signed in: search results, a profile followed by keyboard, the following feed, notifications', async ({
      page,
      provider,
      browser,
      baseURL,
      axe,
    }) => {
      const { theirCaption, otherName } = await withContent(page, provider, browser, baseURL, viewport);

      // Search results, then their profile: Follow by keyboard becomes Unfollow and keeps the focus.
      const search = new SearchPage(page);
      await search.goto();
      await search.input.fill(otherName);
      await search.input.press('Enter');
      await expect(search.result(otherName)).toBeVisible();
      await axe(page, 'search results');

      const profile = new ProfilePage(page);
      await profile.goto(otherName);
      await expect(profile.tiles).toHaveCount(1);
      // The label says what a press does, so no pressed state is announced as well.
      await expect(profile.follow).not.toHaveAttribute('aria-pressed');
      await profile.follow.focus();
      await page.keyboard.press('Space');
      await expect(profile.unfollow).not.toHaveAttribute('aria-pressed');
      await expect(profile.unfollow).toBeFocused();
      await expect(page.getByRole('region', { name: `${otherName}'s profile` }).locator('dl > div').nth(1)).toHaveText(/^Followers?1$/);
      for (const colorScheme of ['light', 'dark'] as const) {
        await useTheme(page, colorScheme);
        await lookAt(page.getByRole('region', { name: `${otherName}'s profile` }), `a11y/profile-followed-${colorScheme}`);
      }
      await axe(page, 'profile');

      const following = new FeedPage(page, 'follow-feed');
      await following.goto();
      await expect(following.post(theirCaption).root).toBeVisible();
      await axe(page, 'following feed');

      await page.goto('/app/notifications');
      await expect(page.getByRole('list', { name: 'Notifications, newest first' }).getByRole('article')).toHaveCount(3);
      await axe(page, 'notifications');
    });

    test('signed in: create (empty, and with a photo chosen) and a screen that does not exist', async ({ page, provider, axe }) => {
      await joinViaApi(page, provider);
      const create = new CreatePostPage(page);
      await create.goto();
      await axe(page, 'create post');
      await create.choose(await makeImage());
      await expect(create.preview).toBeVisible();
      await create.caption.fill('Almost ready');
      await axe(page, 'create post, photo chosen');

      await page.goto('/app/no-such-screen');
      await expect(page.getByText('Page not found')).toBeVisible();
      await axe(page, 'not found (signed in)');
    });

    test("the operator's page and its reason dialog", async ({ page, provider, browser, baseURL, axe }) => {
      const operator = operatorOrSkip(provider);
      const author = await secondPerson(browser, provider, baseURL, viewport);
      const caption = uniqueText('Axe-reported beer');
      await createPostViaApi(author.page, caption);
      const postId = await newestOwnPostId(author.page);
      await author.context.close();

      await signInAsOperator(page, provider, operator);
      await call(page, 'POST', '/api/reports', { kind: 'post', id: postId, reason: 'spam', note: 'Not a beer at all' });
      const admin = new AdminPage(page);
      await admin.goto();
      const report = admin.report(caption);
      await expect(report).toBeVisible();
      await axe(page, 'admin');

      const remove = report.getByRole('button', { name: 'Remove post' });
      await remove.focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Remove post' });
      await expect(dialog.getByLabel('Reason (the author sees it)')).toBeFocused();
      await axe(page, 'admin: reason dialog', 'dialog[open]');
      await page.keyboard.press('Escape');
      await expect(dialog).toHaveCount(0);
      await expect(remove).toBeFocused();
    });
  });
}

test.describe('keyboard and motion on a phone', () => {
  test.use({ viewport: PHONE_AND_DESKTOP[0].viewport });

  test('Tab goes through a feed to "Load more", which loads the next page without scrolling', async ({ page, provider }, testInfo) => {
    // No IntersectionObserver: the list must still grow, by the button alone (as for someone who never scrolls there).
    await page.addInitScript(() => {
      class NeverIntersects {
        observe() {}
        unobserve() {}
        disconnect() {}
        takeRecords() {
          return [];
        }
      }
      Object.defineProperty(window, 'IntersectionObserver', { value: NeverIntersects });
    });
    await joinViaApi(page, provider);
    // More than Discover's page of 10, so there is a next page whatever else is on the server.
    for (let i = 1; i <= 11; i++) await createPostViaApi(page, uniqueText(`Keyboard beer ${i}`));

    const discover = new FeedPage(page, 'discover');
    await discover.goto();
    await expect(discover.posts).toHaveCount(10);

    // The skip link comes first and shows itself.
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    await expectFocusRing(skip);
    await expect(skip).toBeInViewport();

    // Tab by Tab through the whole first page (never under the tab bar) to "Load more posts",
    // which Enter presses like any button: the next page arrives.
    const loadMore = page.getByRole('button', { name: 'Load more posts' });
    const presses = await tabTo(page, loadMore, 200);
    testInfo.annotations.push({ type: 'Tab presses through a page of 10 posts', description: String(presses) });
    await expectFocusRing(loadMore);
    for (const colorScheme of ['light', 'dark'] as const) {
      await useTheme(page, colorScheme);
      await lookAt(page, `a11y/load-more-${colorScheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
    await page.keyboard.press('Enter');
    await expect(discover.posts).not.toHaveCount(10);
    expect(await discover.posts.count()).toBeGreaterThan(10);
    // Focus is not lost: still on the button, or, when that was the last page, on the text that replaced it.
    await expect(loadMore.or(page.getByText("You're all caught up. Cheers!"))).toBeFocused();
  });

  test('the like toggle by keyboard; motion stops when asked', async ({ page, provider }) => {
    await joinViaApi(page, provider);
    const caption = uniqueText('Keyboard-liked beer');
    await createPostViaApi(page, caption);

    // The like toggle of my post: Space likes it, the state is announced and the count follows; Enter takes it back.
    const card = await onDiscover(page, caption);
    await expect(card.likesText).toHaveText('0 likes');
    await tabTo(page, card.likeButton, 200);
    await expectFocusRing(card.likeButton);
    await page.keyboard.press('Space');
    await expect(card.unlikeButton).toHaveAttribute('aria-pressed', 'true');
    await expect(card.unlikeButton).toBeFocused();
    await expect(card.likesText).toHaveText('1 like');
    for (const colorScheme of ['light', 'dark'] as const) {
      await useTheme(page, colorScheme);
      await lookAt(card.root, `a11y/focus-ring-${colorScheme}`);
    }
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
    await page.keyboard.press('Enter');
    await expect(card.likeButton).toHaveAttribute('aria-pressed', 'false');
    await expect(card.likesText).toHaveText('0 likes');

    // Motion: transitions and animations run by default, and none is left for people who ask for less.
    const moving = () =>
      page.evaluate(() => {
        const longest = (v: string) => Math.max(...v.split(',').map((x) => parseFloat(x) * (x.trim().endsWith('ms') ? 0.001 : 1)));
        return Array.from(document.querySelectorAll('*')).filter((el) => {
          const style = getComputedStyle(el);
          return longest(style.transitionDuration) > 0.001 || (style.animationName !== 'none' && longest(style.animationDuration) > 0.001);
        }).length;
      });
    expect(await moving()).toBeGreaterThan(0);
    await page.emulateMedia({ reducedMotion: 'reduce' });
    expect(await moving()).toBe(0);
  });
});
