import { AccountPage } from './pages/account-page';
import { AdminPage } from './pages/admin-page';
import { FeedPage } from './pages/feed-page';
import { NavBar } from './pages/nav-bar';
import { ProfilePage } from './pages/profile-page';
import {
  callAs,
  collectDialogs,
  createPostViaApi,
  expect,
  joinViaApi,
  lookAt,
  operatorOrSkip,
  secondPerson,
  signInAsOperator,
  SIZES,
  test,
  uniqueText,
} from './fixtures';

for (const { name, viewport } of SIZES) {
  test.describe(`moderation on a ${name}`, () => {
    test.use({ viewport });

    test('a report is thanked and the post stays; a second one is refused; ordinary people have no operator page', async ({
      page,
      provider,
      browser,
      baseURL,
    }) => {
      await joinViaApi(page, provider);
      const caption = uniqueText('Reported beer');
      await createPostViaApi(page, caption);

      // Someone reports it: thanked, and the post stays visible until an operator acts.
      const reporter = await secondPerson(browser, provider, baseURL, viewport);
      const feed = new FeedPage(reporter.page, 'discover');
      await feed.goto();
      const note = uniqueText('Not a beer at all');
      const dialog = await (await feed.find(caption)).report('Spam', note);
      await expect(dialog.getByRole('status')).toHaveText('Thanks, an operator will look at it');
      await dialog.getByRole('button', { name: 'Done' }).click();
      await expect(dialog).toHaveCount(0);
      await feed.goto();
      await expect(feed.post(caption).root).toBeVisible();
      // A second report of the same post by the same person is refused, and says so.
      await feed.post(caption).moreOptions.click();
      await feed.post(caption).root.getByRole('button', { name: 'Report post' }).click();
      const again = reporter.page.getByRole('dialog', { name: 'Report post' });
      await again.getByRole('radio', { name: 'Nudity' }).check();
      await again.getByRole('button', { name: 'Send report' }).click();
      await expect(again.getByRole('alert')).toContainText('already');
      await again.getByRole('button', { name: 'Cancel' }).click();
      // Ordinary people have no operator link, and the page refuses them.
      await expect(new NavBar(reporter.page).admin).toHaveCount(0);
      await reporter.page.goto('/app/admin');
      await expect(reporter.page.getByText('Only the operators of this server can open this page.')).toBeVisible();
      await reporter.context.close();
    });

    // Starts from a report made through the API (the dialog is walked above).
    test('a report reaches the operator, who removes the post; the reporter no longer sees it and the author is told why', async ({
      page,
      provider,
      browser,
      baseURL,
    }) => {
      const operator = operatorOrSkip(provider);
      const author = await joinViaApi(page, provider);
      const caption = uniqueText('Reported beer');
      const { postid } = await createPostViaApi(page, caption);
      const reporter = await secondPerson(browser, provider, baseURL, viewport);
      const note = uniqueText('Not a beer at all');
      await callAs(reporter.page, 'POST', '/api/reports', { kind: 'post', id: postid, reason: 'spam', note });
      const feed = new FeedPage(reporter.page, 'discover');

      // The operator finds it from the nav, with who posted it, how many reported and why.
      // No service worker: the end of this test checks what the page asks for without the app's code.
      const opContext = await browser.newContext({ baseURL, viewport, serviceWorkers: 'block' });
      const opPage = await opContext.newPage();
      await signInAsOperator(opPage, provider, operator);
      await new NavBar(opPage).admin.click();
      const admin = new AdminPage(opPage);
      await expect(admin.heading).toBeVisible();
      const report = admin.report(caption);
      await expect(report).toContainText(`Post by ${author.username}`);
      await expect(report).toContainText('1 person reported it');
      await expect(report.getByRole('list', { name: 'Reasons given' })).toContainText('Spam');
      await expect(report.getByRole('list', { name: 'Reasons given' })).toContainText(note);
      await expect(admin.figure('Open reports')).not.toHaveText('0');
      // The page says who the operators are (the embedded provider lists the accounts; Keycloak's role decides there).
      if (provider === 'embedded') await expect(admin.operators).toContainText(operator.username);
      await lookAt(opPage, `moderation/admin-${name}`, { fullPage: true });

      const reason = uniqueText('Off topic: no beer in sight');
      await admin.act(report, 'Remove post', reason);
      await expect(admin.report(caption)).toHaveCount(0);
      await expect(admin.log.getByRole('listitem').first()).toContainText(`${operator.username} · Removed a post`);
      await expect(admin.log.getByRole('listitem').first()).toContainText(reason);

      // Gone for the reporter at once.
      await feed.goto();
      await expect(reporter.page.getByText(caption)).toHaveCount(0);
      // The author sees what was removed and why.
      const account = new AccountPage(page);
      await account.goto();
      const notices = page.getByRole('region', { name: 'Removed by an operator' });
      await expect(notices).toContainText(caption);
      await expect(notices).toContainText(reason);
      await lookAt(page, `moderation/notice-${name}`, { fullPage: true });

      // Opened directly, the page's overview is asked for by index.html itself, before the app's
      // code has arrived (web/src/early-requests.ts): here the code never does.
      await opPage.route(/\/assets\/.+\.js$/, (route) => route.abort());
      const early = opPage.waitForRequest((req) => new URL(req.url()).pathname === '/api/admin/overview');
      await opPage.reload();
      expect((await (await early).response())?.status()).toBe(200);

      await reporter.context.close();
      await opContext.close();
    });

    test('blocking from a profile hides both ways: neither sees the other\'s posts, and the blocked person finds no profile', async ({
      page,
      provider,
      browser,
      baseURL,
    }) => {
      const blocker = await joinViaApi(page, provider);
      const blockerCaption = uniqueText('Blocker’s beer');
      await createPostViaApi(page, blockerCaption);
      const named = await secondPerson(browser, provider, baseURL, viewport);
      const namedCaption = uniqueText('Named beer');
      await createPostViaApi(named.page, namedCaption);
      const dialogs = collectDialogs(page);

      // From the named person's profile.
      const profile = new ProfilePage(page);
      await profile.goto(named.user.username);
      await expect(profile.follow).toBeVisible();
      await profile.follow.click();
      await expect(profile.unfollow).toBeVisible();
      await profile.block.click();
      await expect(page.getByText(`You blocked ${named.user.username}`)).toBeVisible();
      await expect(profile.unblock).toBeVisible();
      await expect(profile.follow).toHaveCount(0);
      await expect(profile.unfollow).toHaveCount(0);
      expect(dialogs.at(-1)).toContain(`Block ${named.user.username}?`);
      await lookAt(page, `moderation/blocked-profile-${name}`, { fullPage: true });
      const feed = new FeedPage(page, 'discover');
      await feed.goto();
      await expect(page.getByText(namedCaption)).toHaveCount(0);

      // A block by name hides both ways: the named person sees neither the blocker's posts nor the profile.
      const theirs = new FeedPage(named.page, 'discover');
      await theirs.goto();
      await expect(named.page.getByText(blockerCaption)).toHaveCount(0);
      await named.page.goto(`/app/profile/${encodeURIComponent(blocker.username)}`);
      await expect(named.page.getByText('User not found')).toBeVisible();
      await named.context.close();
    });

    // Starts with a block by name made through the API (the profile's Block is walked above).
    test('blocking from an anonymous post hides that post only and never names its author; unblocking brings posts back', async ({
      page,
      provider,
      browser,
      baseURL,
    }) => {
      await joinViaApi(page, provider);
      const blockerCaption = uniqueText('Blocker’s beer');
      await createPostViaApi(page, blockerCaption);
      const named = await secondPerson(browser, provider, baseURL, viewport);
      const namedCaption = uniqueText('Named beer');
      await createPostViaApi(named.page, namedCaption);
      await callAs(page, 'POST', `/api/account/${encodeURIComponent(named.user.username)}/block`);
      const hidden = await secondPerson(browser, provider, baseURL, viewport);
      const anonCaption = uniqueText('Anonymous beer');
      await createPostViaApi(hidden.page, anonCaption, true);
      const dialogs = collectDialogs(page);

      // From an anonymous post, without learning who wrote it.
      const feed = new FeedPage(page, 'discover');
      await feed.goto();
      const anon = await feed.find(anonCaption);
      await expect(page.getByText(namedCaption)).toHaveCount(0);
      await expect(anon.header()).toContainText('Anonymous Beer Lover');
      await anon.moreOptions.click();
      await expect(anon.root.getByRole('button', { name: 'Block the author of this post' })).toBeVisible();
      await lookAt(page, `moderation/post-menu-${name}`);
      await anon.root.getByRole('button', { name: 'Block the author of this post' }).click();
      await expect(anon.root).toHaveCount(0);
      expect(dialogs.at(-1)).toContain('Block the author of this post?');
      expect(dialogs.join(' ')).not.toContain(hidden.user.username);
      await feed.goto();
      await expect(page.getByText(anonCaption)).toHaveCount(0);

      // A block on an anonymous post hides that post from the blocker only (docs/api.md, "Blocks and anonymity").
      const hiddensFeed = new FeedPage(hidden.page, 'discover');
      await hiddensFeed.goto();
      await expect((await hiddensFeed.find(blockerCaption)).root).toBeVisible();

      // The list on the account page never names the anonymous author; Unblock brings the named person's posts back.
      const account = new AccountPage(page);
      await account.goto();
      await page.getByText('Blocked people (2)').click();
      const list = page.getByRole('group').filter({ hasText: 'Blocked people' });
      await expect(list).toContainText(named.user.username);
      await expect(list).toContainText('The author of an anonymous post');
      await expect(list).not.toContainText(hidden.user.username);
      await lookAt(page, `moderation/blocked-list-${name}`, { fullPage: true });
      await page.getByRole('button', { name: `Unblock ${named.user.username}` }).click();
      await expect(page.getByText('Blocked people (1)')).toBeVisible();
      await feed.goto();
      await expect((await feed.find(namedCaption)).root).toBeVisible();
      await expect(page.getByText(anonCaption)).toHaveCount(0);

      await named.context.close();
      await hidden.context.close();
    });
  });
}
