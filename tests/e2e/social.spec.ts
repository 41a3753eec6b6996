import { AccountPage } from './pages/account-page';
import { FeedPage } from './pages/feed-page';
import { ProfilePage } from './pages/profile-page';
import { SearchPage } from './pages/search-page';
import {
  collectDialogs,
  createPostViaApi,
  expect,
  followerNames,
  secondPerson,
  joinViaApi,
  test,
  uniqueText,
} from './fixtures';

test.describe('likes and comments', () => {
  test('like and unlike update the count and text; comments appear and the commenter deletes theirs', async ({
    page,
    provider,
    browser,
    baseURL,
  }) => {
    await joinViaApi(page, provider);
    // Posting is posts.spec.ts's subject: the post to like is made through the API.
    const caption = uniqueText('Likeable');
    await createPostViaApi(page, caption);

    const discover = new FeedPage(page, 'discover');
    await discover.goto();
    const card = discover.post(caption);
    await expect(card.likesText).toHaveText('0 likes');
    await card.likeButton.click();
    await expect(card.likesText).toHaveText('1 like');
    await expect(card.unlikeButton).toHaveAttribute('aria-pressed', 'true');

    // A second person likes it too: 2 likes.
    const other = await secondPerson(browser, provider, baseURL);
    const theirs = new FeedPage(other.page, 'discover');
    await theirs.goto();
    await expect(theirs.post(caption).likesText).toHaveText('1 like');
    await theirs.post(caption).likeButton.click();
    await expect(theirs.post(caption).likesText).toHaveText('2 likes');

    // Their comment; the Post button is disabled for blank text and nothing is sent.
    const comments: string[] = [];
    other.page.on('request', (r) => r.url().includes('/api/comment') && r.method() === 'POST' && comments.push(r.url()));
    const theirCard = theirs.post(caption);
    await expect(theirCard.postCommentButton).toBeDisabled();
    await theirCard.commentInput.fill('    ');
    await expect(theirCard.postCommentButton).toBeDisabled();
    await theirCard.commentInput.press('Enter');
    expect(comments).toHaveLength(0);
    const text = uniqueText('Cheers to that');
    await theirCard.addComment(text);
    await expect(theirCard.comment(text)).toContainText(other.user.username);
    await expect(theirCard.commentInput).toHaveValue('');
    expect(comments).toHaveLength(1);

    // The author sees it after a reload, without a delete button on someone else's comment.
    await discover.goto();
    await expect(card.comment(text)).toBeVisible();
    await expect(card.likesText).toHaveText('2 likes');
    await expect(card.comment(text).getByRole('button', { name: 'Delete comment' })).toHaveCount(0);
    await card.unlikeButton.click();
    await expect(card.likesText).toHaveText('1 like');
    await expect(card.likeButton).toHaveAttribute('aria-pressed', 'false');

    // The commenter deletes their comment.
    collectDialogs(other.page);
    await theirCard.comment(text).getByRole('button', { name: 'Delete comment' }).click();
    await expect(theirCard.comment(text)).toHaveCount(0);
    await theirs.goto();
    await expect(theirs.post(caption).root).toBeVisible();
    await expect(theirs.post(caption).comment(text)).toHaveCount(0);

    // Totals on the author's profile.
    const account = new AccountPage(page);
    await account.goto();
    await expect(account.stat('Likes')).toHaveText('1');
    await expect(account.stat('Comments')).toHaveText('0');
    await other.context.close();
  });

  test('a feed loads in one request per page, with no like or comment call per post', async ({ page, provider }) => {
    await joinViaApi(page, provider);
    for (const n of [1, 2]) await createPostViaApi(page, uniqueText(`Feed post ${n}`));
    const perPost: string[] = [];
    const feedCalls: string[] = [];
    page.on('request', (req) => {
      const path = new URL(req.url()).pathname;
      if (path === '/api/like' || path === '/api/comment') perPost.push(`${req.method()} ${req.url()}`);
      if (path === '/api/discover-posts') feedCalls.push(req.url());
    });
    const discover = new FeedPage(page, 'discover');
    await discover.goto();
    await expect(discover.posts.nth(1)).toBeVisible();
    await page.waitForLoadState('networkidle');
    expect(perPost).toEqual([]);
    expect(feedCalls.length).toBeGreaterThanOrEqual(1);
    expect(new URL(feedCalls[0]!).searchParams.get('cursor')).toBeNull();
  });
});

test.describe('paging', () => {
  test('Discover loads the next page with the last cursor as you scroll', async ({ page, provider }) => {
    await joinViaApi(page, provider);
    const first = uniqueText('Oldest of twelve');
    await createPostViaApi(page, first);
    for (let i = 2; i <= 12; i++) await createPostViaApi(page, uniqueText(`Post ${i} of twelve`));

    const pages: URL[] = [];
    page.on('request', (r) => r.url().includes('/api/discover-posts') && pages.push(new URL(r.url())));
    const discover = new FeedPage(page, 'discover');
    await discover.goto();
    await expect(discover.posts.first()).toBeVisible();
    await expect(discover.post(first).root).toHaveCount(0);
    expect(pages).toHaveLength(1);

    // Scroll down until the oldest one arrives with a later page.
    await expect(async () => {
      await page.mouse.wheel(0, 4000);
      await expect(discover.post(first).root).toBeVisible({ timeout: 1000 });
    }).toPass({ timeout: 20_000 });
    expect(pages.length).toBeGreaterThanOrEqual(2);
    expect(pages[0]!.searchParams.get('cursor')).toBeNull();
    expect(pages[1]!.searchParams.get('cursor')).toBeTruthy();
  });
});

test.describe('search and follow', () => {
  test('search, follow and the Following Feed; unfollow removes the posts', async ({
    page,
    provider,
    browser,
    baseURL,
  }) => {
    const me = await joinViaApi(page, provider);
    const other = await secondPerson(browser, provider, baseURL);
    const caption = uniqueText('Worth following');
    await createPostViaApi(other.page, caption);
    await other.context.close();

    // Nobody followed yet: the empty state.
    const following = new FeedPage(page, 'follow-feed');
    await following.goto();
    await expect(page.getByText('No posts from people you follow yet!')).toBeVisible();
    await expect(page.getByText('Follow some users to see their shower beer moments here.')).toBeVisible();

    const search = new SearchPage(page);
    await search.goto();
    await search.search(other.user.username);
    await expect(page.getByText('Found 1 profile(s)')).toBeVisible();
    await search.result(other.user.username).click();

    const profile = new ProfilePage(page);
    await expect(profile.name).toHaveText(other.user.username);
    await expect(profile.tiles).toHaveCount(1);
    await profile.follow.click();
    // The spec: "Follow becomes Unfollow after the call".
    await expect(profile.unfollow).toBeVisible();
    await expect(profile.follow).toHaveCount(0);

    await following.goto();
    await expect(following.post(caption).root).toBeVisible();
    await expect(following.post(caption).header()).toContainText(other.user.username);

    // The state survives a reload: the spec finds it in the viewed user's follower list, and the
    // profile's isFollowing agrees with it.
    await profile.goto(other.user.username);
    await expect(profile.unfollow).toBeVisible();
    expect(await followerNames(page, other.user.username)).toContain(me.username);
    await page.reload();
    await expect(profile.unfollow).toBeVisible();
    await profile.unfollow.click();
    await expect(profile.follow).toBeVisible();
    await expect(profile.unfollow).toHaveCount(0);
    expect(await followerNames(page, other.user.username)).not.toContain(me.username);
    await following.goto();
    await expect(page.getByText('No posts from people you follow yet!')).toBeVisible();
    expect(me.username).not.toBe(other.user.username);
  });

  test('search states: welcome, blank ignored, no results, failure', async ({ page, provider }) => {
    await joinViaApi(page, provider);
    const search = new SearchPage(page);
    await search.goto();
    await expect(page.getByText('Find your fellow beer lovers')).toBeVisible();

    const calls: string[] = [];
    page.on('request', (r) => r.url().includes('/api/search-profiles') && calls.push(r.url()));
    await search.search('   ');
    await expect(page.getByText('Find your fellow beer lovers')).toBeVisible();
    expect(calls).toEqual([]);

    await search.search('zz nobody & co');
    await expect(page.getByText('No profiles found')).toBeVisible();
    await expect(page.getByText('Try searching with a different username')).toBeVisible();
    expect(calls[0]).toContain('username=zz%20nobody%20%26%20co');

    // While the answer is on its way: the loading text.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/api/search-profiles*', async (route) => {
      await held;
      await route.fulfill({ status: 500, json: { error: 'x', message: 'y' } });
    });
    await search.search('anyone');
    await expect(page.getByText('Loading search... 🔍')).toBeVisible();
    release();
    await expect(page.getByText('Search failed, try again.')).toBeVisible();
  });

  test('another user with no posts shows the empty profile', async ({ page, provider, browser, baseURL }) => {
    await joinViaApi(page, provider);
    const other = await secondPerson(browser, provider, baseURL);
    await other.context.close();
    const profile = new ProfilePage(page);
    await profile.goto(other.user.username);
    await expect(page.getByText("This user hasn't shared any shower beer moments yet.")).toBeVisible();
    await expect(profile.follow).toBeVisible();
  });
});
