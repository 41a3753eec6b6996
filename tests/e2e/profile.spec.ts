import { AccountPage } from './pages/account-page';
import { NavBar } from './pages/nav-bar';
import { collectDialogs, expect, makeHugeFile, makeImage, joinViaApi, test } from './fixtures';

test.describe('own profile', () => {
  test('shows its loading text, then the profile', async ({ page, provider }) => {
    await joinViaApi(page, provider);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/api/user-posts*', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto('/app/account');
    await expect(page.getByText('Loading profile... 👤')).toBeVisible();
    release();
    await expect(new AccountPage(page).postsHeading).toBeVisible();
  });

  test('shows the default beer mug, then Change Photo updates the avatar everywhere', async ({ page, provider }) => {
    await joinViaApi(page, provider);
    const account = new AccountPage(page);
    await expect(account.avatar).toHaveAttribute('src', '/beer-mug.svg');
    await expect(account.avatar).toHaveAttribute('alt', 'Default beer mug avatar');

    const dialogs = collectDialogs(page);
    await account.photoInput.setInputFiles(makeHugeFile('huge-photo.jpg'));
    await expect.poll(() => dialogs).toEqual(['File is too large! Max 5MB.']);
    await expect(account.avatar).toHaveAttribute('src', '/beer-mug.svg');

    const upload = page.waitForResponse((r) => r.url().includes('/api/create-post') && r.status() === 201);
    const presign = page.waitForRequest((r) => r.url().includes('/api/presign-upload'));
    await account.photoInput.setInputFiles(await makeImage('me.jpg', 300, 300));
    expect((await presign).postDataJSON()).toMatchObject({ isProfilePicture: true, fileType: 'image/jpeg' });
    expect((await upload).request().postDataJSON()).toMatchObject({ isProfilePicture: true });
    await expect(account.avatar).not.toHaveAttribute('src', '/beer-mug.svg');
    await expect(account.avatar).toHaveAttribute('alt', /profile photo/);
    // The profile photo is not a post.
    await expect(account.stat('Posts')).toHaveText('0');

    // The navigation bar shows it, and it stays after a reload.
    const nav = new NavBar(page);
    const navAvatar = nav.profile.locator('img');
    await expect(navAvatar).not.toHaveAttribute('src', '/beer-mug.svg');
    await account.goto();
    await expect(account.avatar).toHaveAttribute('alt', /profile photo/);
    const pictureUrl = await account.avatar.getAttribute('src');
    await page.goto('/app/discover');
    await expect(navAvatar).toHaveAttribute('src', pictureUrl!);
  });
});
