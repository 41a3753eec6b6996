import { FeedPage } from './pages/feed-page';
import { NavBar } from './pages/nav-bar';
import { ProfilePage } from './pages/profile-page';
import { createPostViaApi, expect, PHONE_AND_DESKTOP, secondPerson, joinViaApi, test, uniqueText } from './fixtures';

for (const { name, viewport } of PHONE_AND_DESKTOP) {
  test.describe(`notifications on a ${name}`, () => {
    test.use({ viewport });

    test('likes raise the bell, the screen groups them per post, and opening it clears the count', async ({
      page,
      provider,
      browser,
      baseURL,
    }, testInfo) => {
      const author = await joinViaApi(page, provider);
      const caption = uniqueText('Bell beer');
      await createPostViaApi(page, caption);
      const nav = new NavBar(page);
      await expect(nav.notifications).toHaveAccessibleName('Notifications');

      const likers = [];
      for (let i = 0; i < 2; i++) {
        const other = await secondPerson(browser, provider, baseURL, viewport);
        const feed = new FeedPage(other.page, 'discover');
        await feed.goto();
        await feed.post(caption).likeButton.click();
        await expect(feed.post(caption).likesText).toHaveText(`${i + 1} like${i ? 's' : ''}`);
        likers.push(other);
      }
      // Their own like on their own post would make none: the author likes it too.
      const own = new FeedPage(page, 'discover');
      await own.goto();
      await own.post(caption).likeButton.click();
      await expect(own.post(caption).likesText).toHaveText('3 likes');

      await page.reload();
      await expect(nav.notifications).toHaveAccessibleName('Notifications, 2 unread');
      await expect(nav.notifications).toContainText('2');
      await page.screenshot({ path: testInfo.outputPath(`bell-${name}.png`) });

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
      await page.screenshot({ path: testInfo.outputPath(`notifications-${name}.png`), fullPage: true });

      // A follow is its own group, on top; nobody else sees the author's notifications.
      const theirView = new ProfilePage(likers[0]!.page);
      await theirView.goto(author.username);
      await theirView.follow.click();
      await expect(theirView.unfollow).toBeVisible();
      await page.reload();
      await expect(entries).toHaveCount(2);
      await expect(sentence(0)).toHaveText(new RegExp(`^${likers[0]!.user.username} started following you\\.`));
      await likers[1]!.page.goto('/app/notifications');
      await expect(likers[1]!.page.getByText('No notifications yet')).toBeVisible();

      for (const other of likers) await other.context.close();
    });
  });
}
