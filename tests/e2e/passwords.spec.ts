import type { Page } from '@playwright/test';
import { AccountPage } from './pages/account-page';
import { AdminPage } from './pages/admin-page';
import { LoginPage } from './pages/login-page';
import type { Credentials } from './pages/sign-in-page';
import { apiCaller, expect, joinViaApi, newUser, operatorOrSkip, operatorToken, signInAsOperator, signInViaApi, test } from './fixtures';
import { makeAccount } from './session';

// Issue 37, part 2: passwords on the embedded provider. Keycloak and Glewlwyd keep their own.
test.use({ viewport: { width: 390, height: 844 } });

/** The app's start page with its Login link, where a signed-out person lands (after Logout, or a refused token). */
async function expectSignedOut(page: Page): Promise<void> {
  // Waits for the state the app reaches, whichever way it got there: by the time this looks,
  // the navigation to / may be over already (page.waitForURL then raced it: "frame was detached").
  await expect(page.getByRole('link', { name: 'Login' })).toBeVisible();
  await expect(page).toHaveURL((url) => url.pathname === '/');
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
    axe,
  }) => {
    const user = await joinViaApi(page, provider, newUser('pw'));
    // The same person on another device, signed in there too.
    const other = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 } });
    const otherPage = await other.newPage();
    await signInViaApi(otherPage, provider, user);

    // joinViaApi left this page on the account screen.
    const account = new AccountPage(page);
    await page.getByRole('button', { name: 'Change password' }).click();
    const form = page.getByRole('form', { name: 'Change password' });
    await expect(form).toBeVisible();
    await axe(page, 'change password');

    await form.getByLabel('Current password').fill('not my password at all');
    await form.getByLabel('New password').fill('quiet lager morning 42');
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect(form.getByRole('alert')).toHaveText('That is not your current password. Nothing was changed.');
    await expect(form.getByLabel('Current password')).toHaveAttribute('aria-invalid', 'true');

    await form.getByLabel('Current password').fill(user.password);
    await form.getByLabel('New password').fill('password123');
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect(form.getByRole('alert')).toContainText('commonly used');
    await axe(page, 'change password, with an error', 'form[aria-label="Change password"]');

    const fresh = 'quiet lager morning 42';
    await form.getByLabel('New password').fill(fresh);
    await form.getByRole('button', { name: 'Change password' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Your password is changed.' })).toBeVisible();
    // This device stays signed in: the page reloads with its new token.
    await page.reload();
    await expect(account.postsHeading).toBeVisible();

    // The other device's next call is refused, and it lands on the sign-in page of the app. The
    // app itself goes on to / once its call is refused: goto waits for no more than the address
    // having been taken, so it does not fail when the app's own navigation cuts its load short.
    await otherPage.goto('/app/account', { waitUntil: 'commit' });
    await expectSignedOut(otherPage);
    await expect(otherPage.getByRole('alert')).toHaveText('Your session has ended. Please log in again.');
    await other.close();

    // Signed out here too: the old password no longer signs in, the new one does.
    await account.logout.click();
    await expectSignedOut(page);
    expect(await trySignIn(page, user)).toBe(false);
    expect(await trySignIn(page, { ...user, password: fresh })).toBe(true);
  });

  test('"Forgot password?" leads to the operator, who makes a reset link on the operator page', async ({ page, provider, browser, baseURL, axe }) => {
    const operator = operatorOrSkip(provider);
    const friendContext = await browser.newContext({ baseURL, viewport: { width: 390, height: 844 } });
    const friendPage = await friendContext.newPage();
    // An account of the server's that this browser is not signed in to (the sign-in page's axe check is a11y.spec's).
    const friend = newUser('fg');
    await makeAccount(provider, friend);

    // The friend forgot it: without e-mail the page says whom to ask.
    await new LoginPage(friendPage).goto();
    await new LoginPage(friendPage).startLogin();
    await friendPage.getByRole('link', { name: 'Forgot password?' }).click();
    await expect(friendPage.getByRole('heading', { name: 'Forgot password?' })).toBeVisible();
    await expect(friendPage.getByText(/Ask its operators?(, .+,)? for a password reset link/)).toBeVisible();
    await axe(friendPage, 'provider: forgot password');

    // The operator makes the link on the operator page and hands it over.
    await signInAsOperator(page, provider, operator);
    const admin = new AdminPage(page);
    await admin.gotoSettings();
    const section = page.getByRole('region', { name: 'Password reset links' });
    await section.getByLabel('Username').fill('nobody-here-at-all');
    await section.getByRole('button', { name: 'Make link' }).click();
    await expect(section.getByRole('alert')).toHaveText('Nobody here has the username nobody-here-at-all.');
    await section.getByLabel('Username').fill(friend.username);
    await section.getByRole('button', { name: 'Make link' }).click();
    const linkField = section.getByLabel(`Reset link for ${friend.username}`);
    await expect(linkField).toBeVisible();
    await expect(section.getByText('Hand it to them yourself')).toBeVisible();
    await axe(page, 'admin: a reset link made', 'section[aria-labelledby="password-reset-heading"]');
    const link = await linkField.inputValue();
    expect(link).toMatch(/\/oauth2\/reset\?token=[A-Za-z0-9_-]{43}$/);
    await friendContext.close();
  });

  // Starts from a link made through the API (the operator page's "Make link" is walked above).
  test('the operator’s reset link sets a new password once', async ({ page: friendPage, provider, axe }) => {
    const operator = operatorOrSkip(provider);
    const friend = newUser('fg');
    await makeAccount(provider, friend);
    const made = (await apiCaller(await operatorToken(provider, operator), 'the operator')(
      'POST',
      `/api/admin/users/${encodeURIComponent(friend.username)}/password-reset`,
    )) as { url: string };
    const link = made.url;
    expect(link).toMatch(/\/oauth2\/reset\?token=[A-Za-z0-9_-]{43}$/);

    await friendPage.goto(link);
    await expect(friendPage.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
    await expect(friendPage.getByText(friend.username, { exact: true })).toBeVisible();
    await axe(friendPage, 'provider: choose a new password');
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
    await axe(friendPage, 'provider: a reset link used already');

    expect(await trySignIn(friendPage, friend)).toBe(false);
    expect(await trySignIn(friendPage, { ...friend, password: fresh })).toBe(true);
  });
});
