import { FeedPage } from './pages/feed-page';
import { NavBar } from './pages/nav-bar';
import { accessToken, apiPerson, createPostViaApi, expect, joinViaApi, lookAt, signInViaApi, SIZES, test, uniqueText } from './fixtures';

for (const { name, viewport } of SIZES) {
  test.describe(`notifications on a ${name}`, () => {
    test.use({ viewport });

    test('likes raise the bell, the screen groups them per post, and opening it clears the count', async ({
      page,
      provider,
      browser,
      baseURL,
    }) => {
      const author = await joinViaApi(page, provider);
      const caption = uniqueText('Bell beer');
      await createPostViaApi(page, caption);
      const nav = new NavBar(page);
      await expect(nav.notifications).toHaveAccessibleName('Notifications');

      const { posts } = (await (await page.request.get('/api/user-posts?limit=1', { headers: { authorization: `Bearer ${await accessToken(page)}` } })).json()) as {
        posts: { postid: number }[];
      };
      const postId = posts[0]!.postid;
      // Two others like it, through the API (liking on a card is social.spec.ts's subject).
      const likers = [];
      for (let i = 0; i < 2; i++) {
        const other = await apiPerson(provider);
        await other.call('POST', '/api/like', { postId });
        likers.push(other);
      }
      // Their own like on their own post would make none: the author likes it too.
      const own = new FeedPage(page, 'discover');
      await own.goto();
      const card = await own.find(caption);
      await expect(card.likesText).toHaveText('2 likes');
      await card.likeButton.click();
      await expect(card.likesText).toHaveText('3 likes');

      await page.reload();
      await expect(nav.notifications).toHaveAccessibleName('Notifications, 2 unread');
      await expect(nav.notifications).toContainText('2');
      await lookAt(page, `notifications/bell-${name}`);

      await nav.notifications.click();
      await expect(page.getByRole('heading', { level: 1, name: 'Notifications' })).toBeVisible();
      const entries = page.getByRole('list', { name: 'Notifications, newest first' }).getByRole('article');
      // The sentence, without the avatars' initials.
      const sentence = (i: number) => entries.nth(i).locator('p');
      await expect(entries).toHaveCount(1);
      await expect(sentence(0)).toHaveText(
        new RegExp(`^${likers[1]!.user.username} and ${likers[0]!.user.username} liked your post\\.`),
      );
      await expect(page.getByRole('heading', { level: 2, name: 'Today' })).toBeVisible();
      await expect(nav.notifications).toHaveAccessibleName('Notifications');
      await lookAt(page, `notifications/notifications-${name}`, { fullPage: true });

      // A follow is its own group, on top; nobody else sees the author's notifications.
      await likers[0]!.call('POST', `/api/account/${encodeURIComponent(author.username)}/follow`);
      await page.reload();
      await expect(entries).toHaveCount(2);
      await expect(sentence(0)).toHaveText(new RegExp(`^${likers[0]!.user.username} started following you\\.`));
      const theirs = await browser.newContext({ baseURL, viewport });
      const theirPage = await theirs.newPage();
      await signInViaApi(theirPage, provider, likers[1]!.user);
      await theirPage.goto('/app/notifications');
      await expect(theirPage.getByText('No notifications yet')).toBeVisible();
      await theirs.close();
    });
  });
}
