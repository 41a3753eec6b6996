import { FeedPage } from './pages/feed-page';
import { NavBar } from './pages/nav-bar';
import { SearchPage } from './pages/search-page';
import { TagPage } from './pages/tag-page';
import { createPostViaApi, expect, joinViaApi, lookAt, secondPerson, SIZES, test, uniqueText } from './fixtures';

// Issue 47: #tags link to their page, @names to the person, who is notified.
for (const { name, viewport } of SIZES) {
  test.describe(`hashtags and mentions on a ${name}`, () => {
    test.use({ viewport });

    test('a caption links #ShowerBeer and @friend; the friend is notified; the tag page and search find it', async ({
      page,
      provider,
      browser,
      baseURL,
      axe,
    }) => {
      const friend = await secondPerson(browser, provider, baseURL, viewport);
      const author = await joinViaApi(page, provider);
      const words = uniqueText('Cold one');
      await createPostViaApi(page, `${words} #ShowerBeer with @${friend.user.username} <b>not bold</b>`, false, { width: 1200, height: 900 });

      const discover = new FeedPage(page, 'discover');
      await discover.goto();
      const card = await discover.find(words);
      const tagLink = card.root.getByRole('link', { name: '#ShowerBeer', exact: true });
      await expect(tagLink).toHaveAttribute('href', '/app/tag/showerbeer');
      const friendLink = card.root.getByRole('link', { name: `@${friend.user.username}`, exact: true });
      await expect(friendLink).toHaveAttribute('href', `/app/profile/${encodeURIComponent(friend.user.username)}`);
      await expect(card.root.getByText('<b>not bold</b>')).toBeVisible();
      await card.root.scrollIntoViewIfNeeded();
      await lookAt(page, `hashtags/linked-caption-${name}`);

      // The tag's link opens its page, which lists the post.
      await tagLink.click();
      const tagPage = new TagPage(page, 'showerbeer');
      await expect(tagPage.heading).toBeVisible();
      await expect(page).toHaveURL(/\/app\/tag\/showerbeer$/);
      await expect(tagPage.post(words).root).toBeVisible();
      await expect(tagPage.post(words).root.getByRole('link', { name: '#ShowerBeer', exact: true })).toBeVisible();
      await lookAt(page, `hashtags/tag-page-${name}`);
      await axe(page, 'tag page');

      // Search: a term starting with # finds tags by prefix, with their post counts.
      const search = new SearchPage(page);
      await search.goto();
      await search.search('#show');
      const found = page.getByRole('main').getByRole('link', { name: /^#showerbeer \d+ posts?$/ });
      await expect(found).toBeVisible();
      await expect(page.getByText(/^Found \d+ tag\(s\)$/)).toBeVisible();
      await lookAt(page, `hashtags/search-tags-${name}`);
      await axe(page, 'search with tags');
      await found.click();
      await expect(tagPage.heading).toBeVisible();

      // The friend's bell shows the mention, and the screen says who.
      const nav = new NavBar(friend.page);
      await friend.page.goto('/app/discover');
      await expect(nav.notifications).toHaveAccessibleName(/^Notifications, \d+ unread$/);
      await nav.notifications.click();
      const entries = friend.page.getByRole('list', { name: 'Notifications, newest first' }).getByRole('article');
      await expect(entries.first().locator('p')).toHaveText(new RegExp(`^${author.username} mentioned you in a post\\.`));
      await lookAt(friend.page, `hashtags/mention-${name}`);
      await friend.context.close();
    });
  });
}
