import { useTheme } from './axe';
import { AccountPage } from './pages/account-page';
import { FeedPage } from './pages/feed-page';
import { NavBar } from './pages/nav-bar';
import { ProfilePage } from './pages/profile-page';
import { callAs, createPostViaApi, expect, joinViaApi, lookAt, secondPerson, SIZES, takingPictures, test, uniqueText } from './fixtures';

// Issue 37, part 3: a private account's follow request is approved, and only then are its posts visible.
for (const { name, viewport } of SIZES) {
  test.describe(`private accounts on a ${name}`, () => {
    test.use({ viewport });

    test('the owner makes the account private: others see the profile without its posts, and a follow becomes a request', async ({
      page,
      provider,
      browser,
      baseURL,
      axe,
    }) => {
      const owner = await joinViaApi(page, provider);
      const caption = uniqueText('Locked-door lager');
      await createPostViaApi(page, caption);

      const account = new AccountPage(page);
      await account.goto();
      await expect(account.privateAccount).not.toBeChecked();
      await account.privateAccount.click();
      await expect(account.privateAccount).toBeChecked();
      await expect(page.getByText('Only your followers see your posts.', { exact: false })).toBeVisible();
      await page.reload();
      await expect(account.privateAccount).toBeChecked();
      await lookAt(page, `private-accounts/account-${name}`, { fullPage: true });
      await axe(page, 'account, private');

      // Someone else: the profile, but not its posts; not on Discover either.
      const friend = await secondPerson(browser, provider, baseURL, viewport);
      const profile = new ProfilePage(friend.page);
      await profile.goto(owner.username);
      await expect(profile.privateNotice).toBeVisible();
      await expect(profile.tiles).toHaveCount(0);
      const discover = new FeedPage(friend.page, 'discover');
      await discover.goto();
      // Once the first page is in (its end shows, or the empty state on a server with no other posts), the post is not on it.
      const pageEnd = friend.page
        .getByRole('button', { name: 'Load more posts' })
        .or(friend.page.getByText("You're all caught up. Cheers!"))
        .or(friend.page.getByText('No posts yet!'));
      await expect(pageEnd.first()).toBeVisible();
      await expect(friend.page.getByText(caption)).toHaveCount(0);

      await profile.goto(owner.username);
      await profile.follow.click();
      await expect(profile.requested).toBeVisible();
      await expect(profile.tiles).toHaveCount(0);
      await friend.page.reload();
      await expect(profile.requested).toBeVisible();
      await expect(profile.privateNotice).toBeVisible();
      await lookAt(friend.page, `private-accounts/profile-requested-${name}`, { fullPage: true });
      await axe(friend.page, 'profile, private with a waiting request');
      await friend.context.close();
    });

    // Starts where the test above ends, made through the API (the account page's switch and the
    // profile's Follow are walked above): two tests of a third of a minute each, not one of two thirds.
    test('a follow request is approved from the notifications, and only then are the posts shown', async ({
      page,
      provider,
      browser,
      baseURL,
      axe,
    }) => {
      const owner = await joinViaApi(page, provider);
      const caption = uniqueText('Locked-door lager');
      await createPostViaApi(page, caption);
      expect(await callAs(page, 'PUT', '/api/account/privacy', { isPrivate: true })).toMatchObject({ isPrivate: true });
      const friend = await secondPerson(browser, provider, baseURL, viewport);
      expect(await callAs(friend.page, 'POST', `/api/account/${encodeURIComponent(owner.username)}/follow`)).toMatchObject({ requested: true });
      const profile = new ProfilePage(friend.page);
      const discover = new FeedPage(friend.page, 'discover');

      // The owner's bell counts the request; they answer from the Notifications screen.
      const nav = new NavBar(page);
      await page.reload();
      await expect(nav.notifications).toHaveAccessibleName('Notifications, 1 unread');
      await nav.notifications.click();
      const requests = page.getByRole('region', { name: 'Follow requests' });
      await expect(requests.getByText(`${friend.user.username} asked to follow you.`)).toBeVisible();
      // Nothing under it contradicts the waiting request (issue 48).
      await expect(page.getByText('Nothing else yet: likes, comments, mentions and new followers show here.')).toBeVisible();
      await expect(page.getByText('No notifications yet')).toHaveCount(0);
      await lookAt(page, `private-accounts/follow-requests-${name}`, { fullPage: true });
      await axe(page, 'notifications, a follow request');
      if (takingPictures()) {
        await useTheme(page, 'dark');
        await lookAt(page, `private-accounts/follow-requests-${name}-dark`, { fullPage: true });
        await useTheme(page, 'light');
      }
      await requests.getByRole('button', { name: `Approve ${friend.user.username}` }).click();
      await expect(page.getByRole('status').filter({ hasText: `${friend.user.username} now follows you.` })).toBeVisible();
      await expect(requests.getByRole('button', { name: `Approve ${friend.user.username}` })).toHaveCount(0);
      await expect(nav.notifications).toHaveAccessibleName(/^Notifications/);
      await expect(nav.notifications).not.toHaveAccessibleName('Notifications, 1 unread');
      // Approving is the owner's own act: no "started following you" for it.
      await page.reload();
      await expect(page.getByText('No notifications yet')).toBeVisible();
      await expect(page.getByText('started following you')).toHaveCount(0);

      // The friend is told, by the bell and on their Notifications screen (issue 48).
      const friendNav = new NavBar(friend.page);
      await friend.page.reload();
      await expect(friendNav.notifications).toHaveAccessibleName('Notifications, 1 unread');
      await friendNav.notifications.click();
      await expect(friend.page.getByRole('list', { name: 'Notifications, newest first' }).getByRole('article').locator('p')).toHaveText(
        new RegExp(`^${owner.username} accepted your follow request\\.`),
      );
      await lookAt(friend.page, `private-accounts/request-accepted-${name}`, { fullPage: true });
      await axe(friend.page, 'notifications, a follow request accepted');
      if (takingPictures()) {
        await useTheme(friend.page, 'dark');
        await lookAt(friend.page, `private-accounts/request-accepted-${name}-dark`, { fullPage: true });
        await useTheme(friend.page, 'light');
      }

      // Now the friend follows, and sees the posts on the profile and on Discover.
      await profile.goto(owner.username);
      await expect(profile.unfollow).toBeVisible();
      await expect(profile.tiles.filter({ has: friend.page.getByRole('img', { name: `Photo: ${caption}` }) })).toHaveCount(1);
      await expect(profile.privateNotice).toHaveCount(0);
      await discover.goto();
      await expect((await discover.find(caption)).root).toBeVisible();

      await friend.context.close();
    });
  });
}
