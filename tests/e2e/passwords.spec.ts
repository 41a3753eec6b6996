import AxeBuilder from '@axe-core/playwright';
import type { Page, TestInfo } from '@playwright/test';
import { AccountPage } from './pages/account-page';
import { AdminPage } from './pages/admin-page';
import { LoginPage } from './pages/login-page';
import type { Credentials } from './pages/sign-in-page';
import { expect, newUser, operatorOrSkip, signIn, signInAsOperator, signUp, test } from './fixtures';

// Issue 37, part 2: passwords on the embedded provider. Keycloak and Glewlwyd keep their own.
test.use({ viewport: { width: 390, height: 844 } });

const WCAG_22_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** axe on what is on screen, light and dark; E2E_SHOTS=dir also keeps a screenshot of each. */
async function axeClean(page: Page, testInfo: TestInfo, screen: string, include?: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
    let builder = new AxeBuilder({ page }).withTags(WCAG_22_AA);
    if (include) builder = builder.include(include);
    const { violations } = await builder.analyze();
    const found = violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect.soft(found, `${screen} (${colorScheme})`).toEqual([]);
    if (process.env.E2E_SHOTS) {
      const size = page.viewportSize();
      await page.screenshot({ path: `${process.env.E2E_SHOTS}/${screen}-${size?.width}-${colorScheme}.png`, fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  void testInfo;
}

/** Tries the embedded sign-in page with these credentials; true when it let the person in. */
async function trySignIn(page: Page, user: Credentials): Promise<boolean> {
  const login = new LoginPage(page);
  await login.goto();
  await login.startLogin();
  await page.getByLabel('Username or email').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const refused = page.getByRole('alert').filter({ hasText: 'Wrong username/email or password.' });
  const inside = page.getByRole('heading', { name: 'POSTS' });
  await expect(refused.or(inside)).toBeVisible();
  return inside.isVisible();
}

test.describe('passwords on the embedded provider', () => {
  test.beforeEach(({ provider }) => {
    test.skip(provider !== 'embedded', 'Keycloak and Glewlwyd keep passwords on their own pages');
  });

  test('a password is changed on a phone: the old one no longer works, and the other device is signed out', async ({
    page,
    provider,
    browser,
    baseURL,
  }, testInfo) => {
    const user = await signUp(page, provider, newUser('pw'));
    // The same person on another device.
    const other = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 } });
    const otherPage = await other.newPage();
    await signIn(otherPage, provider, user);

    const account = new AccountPage(page);
    await account.goto();
    await page.getByRole('button', { name: 'Change password' }).click();
    const form = page.getByRole('form', { name: 'Change password' });
    await expect(form).toBeVisible();
    await axeClean(page, testInfo, 'change-password');

    await form.getByLabel('Current password').fill('not my password at all');
    await form.getByLabel('New password').fill('quiet lager morning 42');
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect(form.getByRole('alert')).toHaveText('That is not your current password. Nothing was changed.');
    await expect(form.getByLabel('Current password')).toHaveAttribute('aria-invalid', 'true');

    await form.getByLabel('Current password').fill(user.password);
    await form.getByLabel('New password').fill('password123');
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect(form.getByRole('alert')).toContainText('commonly used');
    await axeClean(page, testInfo, 'change-password-error', 'form[aria-label="Change password"]');

    const fresh = 'quiet lager morning 42';
    await form.getByLabel('New password').fill(fresh);
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Your password is changed.' })).toBeVisible();
    // This device stays signed in: the page reloads with its new token.
    await page.reload();
    await expect(account.postsHeading).toBeVisible();

    // The other device's next call is refused, and it lands on the sign-in page of the app.
    await otherPage.goto('/app/account');
    await otherPage.waitForURL((url) => url.pathname === '/');
    await other.close();

    // Signed out here too: the old password no longer signs in, the new one does.
    await account.logout.click();
    await page.waitForURL((url) => url.pathname === '/');
    expect(await trySignIn(page, user)).toBe(false);
    expect(await trySignIn(page, { ...user, password: fresh })).toBe(true);
  });

  test('"Forgot password?" leads to the operator; the operator’s link sets a new password once', async ({ page, provider, browser, baseURL }, testInfo) => {
    const operator = operatorOrSkip(provider);
    const friendContext = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 } });
    const friendPage = await friendContext.newPage();
    const friend = await signUp(friendPage, provider, newUser('fg'));
    await friendPage.getByRole('button', { name: 'Logout' }).click();
    await friendPage.waitForURL((url) => url.pathname === '/');

    // The friend forgot it: without e-mail the page says whom to ask.
    await new LoginPage(friendPage).goto();
    await new LoginPage(friendPage).startLogin();
    await axeClean(friendPage, testInfo, 'sign-in');
    await friendPage.getByRole('link', { name: 'Forgot password?' }).click();
    await expect(friendPage.getByRole('heading', { name: 'Forgot password?' })).toBeVisible();
    await expect(friendPage.getByText('Ask its operator for a password reset link')).toBeVisible();
    await axeClean(friendPage, testInfo, 'forgot-password');

    // The operator makes the link on the operator page and hands it over.
    await signInAsOperator(page, provider, operator);
    const admin = new AdminPage(page);
    await admin.goto();
    const section = page.getByRole('region', { name: 'Password reset links' });
    await section.getByLabel('Username').fill('nobody-here-at-all');
    await section.getByRole('button', { name: 'Make link' }).click();
    await expect(section.getByRole('alert')).toHaveText('Nobody here has the username nobody-here-at-all.');
    await section.getByLabel('Username').fill(friend.username);
    await section.getByRole('button', { name: 'Make link' }).click();
    const linkField = section.getByLabel(`Reset link for ${friend.username}`);
    await expect(linkField).toBeVisible();
    await expect(section.getByText('Hand it to them yourself')).toBeVisible();
    await axeClean(page, testInfo, 'operator-reset-link', 'section[aria-labelledby="password-reset-heading"]');
    const link = await linkField.inputValue();
    expect(link).toMatch(/\/oauth2\/reset\?token=[A-Za-z0-9_-]{43}$/);

    await friendPage.goto(link);
    await expect(friendPage.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
    await expect(friendPage.getByText(friend.username, { exact: true })).toBeVisible();
    await axeClean(friendPage, testInfo, 'reset-password');
    await friendPage.getByLabel('New password').fill('short');
    await friendPage.getByRole('button', { name: 'Set new password' }).click();
    await expect(friendPage.getByText('Use a password of at least 8 characters.')).toBeVisible();
    const fresh = 'cold stout evening 77';
    await friendPage.getByLabel('New password').fill(fresh);
    await friendPage.getByRole('button', { name: 'Set new password' }).click();
    await expect(friendPage.getByRole('heading', { name: 'Your password is changed' })).toBeVisible();

    // The link works once.
    await friendPage.goto(link);
    await expect(friendPage.getByRole('heading', { name: 'This reset link cannot be used' })).toBeVisible();
    await expect(friendPage.getByText('This reset link was already used')).toBeVisible();
    await axeClean(friendPage, testInfo, 'reset-link-used');

    expect(await trySignIn(friendPage, friend)).toBe(false);
    expect(await trySignIn(friendPage, { ...friend, password: fresh })).toBe(true);
    await friendContext.close();
  });
});
