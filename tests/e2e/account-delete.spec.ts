import { AccountPage } from './pages/account-page';
import { FeedPage } from './pages/feed-page';
import { NavBar } from './pages/nav-bar';
import { ProfilePage } from './pages/profile-page';
import { SignInPage } from './pages/sign-in-page';
import { createPostViaApi, expect, joinViaApi, lookAt, secondPerson, signIn, test, uniqueText } from './fixtures';

test.describe('deleting an account', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('on a phone: confirm, and the posts are gone for everyone else', async ({ page, provider, browser, baseURL }) => {
    const owner = await joinViaApi(page, provider);
    const caption = uniqueText('Last beer of the account');
    await createPostViaApi(page, caption);

    const other = await secondPerson(browser, provider, baseURL);
    const otherFeed = new FeedPage(other.page, 'discover');
    await otherFeed.goto();
    await expect(otherFeed.post(caption).root).toBeVisible();

    const account = new AccountPage(page);
    await account.goto();
    await expect(page.getByText(/^Storage: [\d.]+ (bytes|KB) of 1 GB used$/)).toBeVisible();
    await account.deleteAccount.scrollIntoViewIfNeeded();
    await account.deleteAccount.click();
    await expect(account.confirmDelete).toBeDisabled();
    await account.confirmUsername.fill('not my name');
    await expect(account.confirmDelete).toBeDisabled();
    await account.confirmUsername.fill(owner.username);
    await expect(account.confirmDelete).toBeEnabled();
    // The whole confirmation fits the phone's width.
    const box = await account.confirmDelete.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 390).toBe(true);
    await account.confirmDelete.click();
    await new SignInPage(page, provider).confirmLogoutIfAsked();
    await page.waitForURL((url) => url.pathname === '/');

    await otherFeed.goto();
    await expect(other.page.getByText(caption)).toHaveCount(0);
    await other.page.goto(`/app/profile/${owner.username}`);
    await expect(other.page.getByText(caption)).toHaveCount(0);
    await other.context.close();
  });

  test('with an OpenID provider: the sign-in account stays, and signing in again starts an empty account', async ({
    page,
    provider,
    browser,
    baseURL,
  }) => {
    test.skip(provider !== 'keycloak', 'the provider keeps the sign-in account only with Keycloak here (Glewlwyd runs the short lane)');
    const owner = await joinViaApi(page, provider);
    const ownCaption = uniqueText('Before deleting');
    await createPostViaApi(page, ownCaption);
    const other = await secondPerson(browser, provider, baseURL);
    const theirCaption = uniqueText('Stays');
    await createPostViaApi(other.page, theirCaption);

    // The owner likes and comments on the other's post and follows them; the other likes back.
    const feed = new FeedPage(page, 'discover');
    await feed.goto();
    await feed.post(theirCaption).likeButton.click();
    await expect(feed.post(theirCaption).likesText).toHaveText('1 like');
    await feed.post(theirCaption).commentInput.fill('Cheers from the old account');
    await feed.post(theirCaption).postCommentButton.click();
    await expect(feed.post(theirCaption).comments).toContainText('Cheers from the old account');
    const theirProfile = new ProfilePage(page);
    await theirProfile.goto(other.user.username);
    await theirProfile.follow.click();
    await expect(theirProfile.unfollow).toBeVisible();
    const otherFeed = new FeedPage(other.page, 'discover');
    await otherFeed.goto();
    await otherFeed.post(ownCaption).likeButton.click();
    await expect(otherFeed.post(ownCaption).likesText).toHaveText('1 like');

    const account = new AccountPage(page);
    await account.goto();
    await account.deleteAccount.click();
    const staysNote = page.getByText('Your sign-in account (your username and password) is kept by the sign-in service');
    await expect(staysNote).toBeVisible();
    const manage = page.getByRole('link', { name: 'Manage or delete your sign-in account' });
    await expect(manage).toHaveAttribute('href', /\/realms\/shower-beer\/account$/);
    await lookAt(page, `account-delete/delete-with-provider`, { fullPage: true });
    await account.confirmUsername.fill(owner.username);
    await account.confirmDelete.click();
    await new SignInPage(page, provider).confirmLogoutIfAsked();
    await page.waitForURL((url) => url.pathname === '/');

    // The same Keycloak account signs in again: a new, empty account under the same name.
    await signIn(page, provider, owner);
    await expect(account.name).toHaveText(owner.username);
    await expect(page.getByText('No posts yet', { exact: true })).toBeVisible();
    await expect(account.stat('Posts')).toHaveText('0');
    await expect(account.stat('Likes')).toHaveText('0');
    await expect(account.stat('Comments')).toHaveText('0');
    await expect(new NavBar(page).notifications).toHaveAccessibleName('Notifications');
    await theirProfile.goto(other.user.username);
    await expect(theirProfile.follow).toBeVisible();
    await expect(page.getByRole('region', { name: `${other.user.username}'s profile` }).locator('dl > div').nth(1)).toHaveText(/^Followers?0$/);

    // The other person sees nothing of the old account: no like, no comment, no post.
    await otherFeed.goto();
    await expect(otherFeed.post(theirCaption).likesText).toHaveText('0 likes');
    await expect(otherFeed.post(theirCaption).root).not.toContainText('Cheers from the old account');
    await expect(other.page.getByText(ownCaption)).toHaveCount(0);
    await other.context.close();
  });
});
