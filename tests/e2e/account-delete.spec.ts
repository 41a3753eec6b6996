import { AccountPage } from './pages/account-page';
import { FeedPage } from './pages/feed-page';
import { SignInPage } from './pages/sign-in-page';
import { createPostViaApi, expect, secondPerson, signUp, test, uniqueText } from './fixtures';

test.describe('deleting an account', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('on a phone: confirm, and the posts are gone for everyone else', async ({ page, provider, browser, baseURL }) => {
    const owner = await signUp(page, provider);
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
});
