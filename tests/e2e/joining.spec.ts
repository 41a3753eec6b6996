import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { AdminPage } from './pages/admin-page';
import { RegistrationSettings } from './pages/registration-settings';
import { expect, newUser, test, type Credentials } from './fixtures';
import { giveSession, tokenFor, workerToken } from './session';

// Issue 37, parts 1 and 4: who may join and the server's own page. These tests change the
// server's registration mode and name, which every other spec's sign-up depends on, so they run
// against a server of their own (its own port and data folder), never the suite's.
test.skip(!!process.env.E2E_BASE_URL, 'starts a server of its own from the build the suite runs (E2E_APP_DIR or this checkout)');
test.describe.configure({ mode: 'serial' });

const port = Number(process.env.E2E_PORT ?? 3100) + 50;
const origin = `http://localhost:${port}`;
const PHONE = { width: 390, height: 844 };
const SHOTS = process.env.E2E_SHOTS_DIR;

let server: ChildProcess | null = null;
let dataDir = '';

test.beforeAll(async () => {
  test.setTimeout(100_000);
  dataDir = mkdtempSync(join(tmpdir(), 'shower-beer-join-e2e-'));
  const start = () =>
    // The tree the suite's own server runs (playwright.config.ts: E2E_APP_DIR, CI's image tree), else this checkout's build.
    spawn(process.execPath, ['server/dist/server.js'], {
      cwd: process.env.E2E_APP_DIR ?? process.cwd(),
      env: {
        ...process.env,
        PORT: String(port),
        DATA_DIR: dataDir,
        PUBLIC_URL: origin,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_AUTH_PER_MINUTE: '10000',
        RATE_LIMIT_WRITES_PER_MINUTE: '10000',
        ADMIN_USERNAMES: '',
      },
      stdio: 'inherit',
    });
  // A busy runner once took past Fastify's former 10 s plugin limit here; the server's own
  // pluginTimeout (server/src/fastify-options.ts) now allows 60 s, so one start is waited for.
  const child = start();
  server = child;
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline && child.exitCode === null) {
    const up = await fetch(`${origin}/healthz`).then((r) => r.ok, () => false);
    if (up) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGKILL');
  throw new Error(`the server on ${origin} did not start`);
});

test.afterAll(async () => {
  server?.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  rmSync(dataDir, { recursive: true, force: true });
});

test.use({ baseURL: origin, viewport: PHONE });

const shot = async (page: Page, name: string) => {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
};

/** The embedded provider's sign-up page, from the landing page's Login. */
async function openSignUp(page: Page) {
  await page.getByRole('link', { name: 'Login' }).click();
  await page.getByRole('link', { name: 'Create account' }).click();
  await expect(page.getByRole('heading', { name: 'Create account' })).toBeVisible();
}

async function fillSignUp(page: Page, user: Credentials) {
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
}

/**
 * Signs a person of this server in without the browser (tests/e2e/session.ts), once per worker;
 * `make` signs them up first. The sign-up that is the subject here (an invite, approval) is walked.
 */
async function signedIn(page: Page, user: Credentials, make = false): Promise<void> {
  const token = await workerToken('embedded', user, () => tokenFor('embedded', user, make, origin), origin);
  await giveSession(page.context(), token, origin);
  await page.goto('/app/account');
  await expect(page.getByRole('heading', { name: 'POSTS' })).toBeVisible();
}

/**
 * Opens `path` until the page shows `what`. The server makes its pages again after the operator
 * saves the server's page or mode (server/src/web/plugin.ts, instance.onChange), in the
 * background: until that is done the previous pages answer, for longer on a slow runner.
 */
async function openWhenShown(page: Page, path: string, what: string): Promise<void> {
  await expect(async () => {
    await page.goto(path);
    await expect(page.getByText(what)).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
}

const operator = newUser('op');
const friend = newUser('f');
const RULES = ['Be kind to everyone', 'No faces without consent'];

// The invite-only story in three steps (serial): the operator's, the stranger's, the friend's.
let link = '';

test('the operator opens an invite-only server and makes an invite link', async ({ page, axe }) => {
  // The server's first account is its operator, whatever the mode.
  await signedIn(page, operator, true);

  const admin = new AdminPage(page);
  await admin.gotoSettings();
  const settings = new RegistrationSettings(page);
  // The release it runs, to match against CHANGELOG.md (GET /api/instance's version).
  await expect(settings.serverPage.getByTestId('app-version')).toHaveText(/^Shower Beer \d+\.\d+\.\d+$/);
  await settings.setServerPage('Hops & Steam', 'Friends of the sauna club share their after-sauna beers.', RULES);
  await settings.setMode('Invite only');
  link = await settings.createInvite(1);
  await expect(settings.invites.getByRole('list', { name: 'Invite links' })).toContainText('1 of 1 uses left');
  await axe(page, 'admin, invite only with a new invite');
  await shot(page, 'admin-phone');
});

test('a stranger without a link is told the server needs one, and refused', async ({ page: stranger, axe }) => {
  // The landing page says whose server it is, its rules, and that joining needs a link.
  await openWhenShown(stranger, '/', 'Joining Hops & Steam needs an invite link.');
  await expect(stranger.getByRole('heading', { level: 1, name: 'Hops & Steam' })).toBeVisible();
  await expect(stranger).toHaveTitle('Hops & Steam');
  await expect(stranger.getByText('Friends of the sauna club share their after-sauna beers.')).toBeVisible();
  const rules = stranger.getByRole('region', { name: 'Rules of Hops & Steam' });
  await expect(rules.getByRole('listitem')).toHaveText(RULES);
  await expect(stranger.getByText('Joining Hops & Steam needs an invite link.')).toBeVisible();
  await axe(stranger, 'start page, invite only with rules');
  await shot(stranger, 'landing-phone');
  await openSignUp(stranger);
  // Said before they type, and again when refused: the server is invite-only, and whom to ask (issue 48, point 3).
  await expect(stranger.getByText('Hops & Steam is invite-only: you join with an invite link from someone on it.')).toBeVisible();
  const someone = newUser('x');
  await fillSignUp(stranger, someone);
  await stranger.getByLabel('I agree to these rules').check();
  await stranger.getByRole('button', { name: 'Create account' }).click();
  await expect(stranger.getByRole('alert')).toHaveText('Hops & Steam is invite-only: an account here needs the code of an invite link.');
  const invite = stranger.getByLabel('Invite code');
  await expect(invite).toBeFocused();
  await expect(invite).toHaveAttribute('aria-invalid', 'true');
  await expect(invite).toHaveAccessibleDescription(/No link yet\? Ask the operator of Hops & Steam for one, then open it: it fills in the code for you\./);
  // What they typed stays, the rules stay agreed to; the password field says why it is empty.
  await expect(stranger.getByLabel('Username')).toHaveValue(someone.username);
  await expect(stranger.getByLabel('Email')).toHaveValue(someone.email);
  await expect(stranger.getByLabel('I agree to these rules')).toBeChecked();
  await expect(stranger.getByLabel('Password')).toHaveAccessibleDescription(/^Type it again: a form that comes back never keeps the password\./);
  await axe(stranger, 'provider: create account, refused without an invite');
  await shot(stranger, 'signup-refused-phone');
  await invite.fill('NotARealInviteCodeAtAll1');
  await stranger.getByLabel('Password').fill(someone.password);
  await stranger.getByRole('button', { name: 'Create account' }).click();
  await expect(stranger.getByRole('alert')).toContainText('This invite link is not valid.');
  await expect(stranger.getByLabel('Invite code')).toBeFocused();
});

test('a friend joins through the invite link', async ({ page: friendPage, axe }) => {
  // Invited: the code carried to the sign-up page, the rules to agree to.
  await friendPage.goto(link);
  await expect(friendPage.getByText('You are invited to join Hops & Steam.')).toBeVisible();
  await openSignUp(friendPage);
  await expect(friendPage.getByLabel('Invite code')).toHaveValue(new URL(link).searchParams.get('invite')!);
  await expect(friendPage.getByRole('region', { name: 'Rules of Hops & Steam' })).toContainText('No faces without consent');
  await axe(friendPage, 'provider: create account, invited');
  await shot(friendPage, 'signup-invite-phone');
  await fillSignUp(friendPage, friend);
  await friendPage.getByRole('button', { name: 'Create account' }).click();
  await expect(friendPage.getByRole('alert')).toHaveText('Please agree to the rules of Hops & Steam to join.');
  await friendPage.getByLabel('Password').fill(friend.password);
  await friendPage.getByLabel('I agree to these rules').check();
  await friendPage.getByRole('button', { name: 'Create account' }).click();
  // A newcomer is welcomed by the server's name with what to do first, not the account settings (issue 48, point 6).
  await expect(friendPage.getByRole('heading', { level: 1, name: 'Welcome to Hops & Steam!' })).toBeVisible();
  await expect(friendPage).toHaveTitle('Welcome · Hops & Steam');
  await expect(friendPage.getByText('Delete account')).toHaveCount(0);
  await axe(friendPage, 'welcome after sign-up');
  await shot(friendPage, 'welcome-phone');
  await friendPage.getByRole('link', { name: /^Post your first photo/ }).click();
  await expect(friendPage).toHaveURL(/\/app\/create-post$/);
  // Shown once: opening the app again goes where a sign-in always goes.
  await friendPage.goto('/app');
  await expect(friendPage.getByRole('heading', { name: 'POSTS' })).toBeVisible();
  await expect(friendPage).toHaveTitle('Your profile · Hops & Steam');
  // The operator's list says the link is used up: the next test, on a desktop.
});

test('the same screens on a desktop', async ({ page, browser, axe }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await signedIn(page, operator);
  const admin = new AdminPage(page);
  await admin.gotoSettings();
  await expect(new RegistrationSettings(page).invites.getByRole('list', { name: 'Invite links' })).toContainText('Used up');
  await axe(page, 'admin, invite only with an invite used');
  await shot(page, 'admin-desktop');
  await page.goto('/');
  await expect(page).toHaveURL(/\/app\/account$/);
  const visitor = await browser.newContext({ baseURL: origin, viewport: { width: 1280, height: 900 } });
  const landing = await visitor.newPage();
  await landing.goto('/');
  await expect(landing.getByRole('heading', { level: 1, name: 'Hops & Steam' })).toBeVisible();
  await axe(landing, 'start page, invite only with rules');
  await shot(landing, 'landing-desktop');
  await visitor.close();
});

test('approval: a newcomer waits with their reason until the operator lets them in', async ({ page, browser, axe }) => {
  await signedIn(page, operator);
  const admin = new AdminPage(page);
  await admin.gotoSettings();
  const settings = new RegistrationSettings(page);
  await settings.setMode('Approval');

  const newcomerContext = await browser.newContext({ baseURL: origin, viewport: PHONE });
  const newcomer = await newcomerContext.newPage();
  await openWhenShown(newcomer, '/', 'New accounts are looked at by an operator before they can join in.');
  await openSignUp(newcomer);
  const person = newUser('n');
  await fillSignUp(newcomer, person);
  await newcomer.getByLabel('Why do you want to join?').fill('I brew my own stout.');
  await newcomer.getByLabel('I agree to these rules').check();
  await newcomer.getByRole('button', { name: 'Create account' }).click();
  await expect(newcomer.getByRole('heading', { level: 1, name: 'Your account is waiting for an operator' })).toBeVisible();
  await axe(newcomer, 'waiting for an operator');
  await shot(newcomer, 'waiting-phone');

  await admin.goto();
  const request = settings.waiting.getByRole('listitem').filter({ hasText: person.username });
  await expect(request).toContainText('“I brew my own stout.”');
  await request.getByRole('button', { name: `Approve ${person.username}` }).click();
  await expect(settings.waiting.getByText('Nobody is waiting.')).toBeVisible();
  // The answer is in the moderation log at once, with who gave it.
  await expect(admin.log.getByRole('listitem').first()).toContainText(`${operator.username} · Let in`);
  await expect(admin.log.getByRole('listitem').first()).toContainText(person.username);

  // Let in: the welcome its sign-up led to, now that the app works for it.
  await newcomer.reload();
  await expect(newcomer.getByRole('heading', { level: 1, name: 'Welcome to Hops & Steam!' })).toBeVisible();
  await newcomerContext.close();
});

test('members may invite: a member makes a link from their account page', async ({ page, browser, axe }) => {
  await signedIn(page, operator);
  await new AdminPage(page).gotoSettings();
  const settings = new RegistrationSettings(page);
  // The friend from the first test makes a link from their account page.
  await settings.setMode('Invite only');
  await settings.whoMayJoin.getByRole('checkbox', { name: /Members can invite/ }).check();
  await settings.whoMayJoin.getByRole('button', { name: 'Save registration' }).click();
  await expect(settings.whoMayJoin.getByRole('status')).toHaveText('Saved: Invite only.');
  const memberContext = await browser.newContext({ baseURL: origin, viewport: PHONE });
  const member = await memberContext.newPage();
  await signedIn(member, friend);
  await openWhenShown(member, '/app/account', 'Invite friends');
  await member.getByText('Invite friends').click();
  await member.getByRole('button', { name: 'Create invite link' }).click();
  await expect(member.getByLabel('New invite link (shown once: copy it now)')).toHaveValue(/\/\?invite=[A-Za-z0-9_-]{24}$/);
  await expect(member.getByRole('list', { name: 'Invite links' }).getByRole('listitem')).toHaveCount(1);
  await axe(member, 'account, invite friends');
  await shot(member, 'account-invite-phone');
  await memberContext.close();

  // Turning the switch off withdraws the member's open link; the operator page says why (issue 45).
  await settings.whoMayJoin.getByRole('checkbox', { name: /Members can invite/ }).uncheck();
  await settings.whoMayJoin.getByRole('button', { name: 'Save registration' }).click();
  await expect(settings.whoMayJoin.getByRole('status')).toHaveText('Saved: Invite only.');
  await page.reload();
  await expect(settings.invites.getByRole('list', { name: 'Invite links' }).getByRole('listitem').filter({ hasText: `By ${friend.username}` })).toContainText(
    'Withdrawn: “Members can invite” was turned off',
  );

  // Put the server back as the other specs expect a server to be (it is this spec's own, but tidy anyway).
  await settings.setMode('Open');
});
