import t from 'tap';
import { buildTestApp, bearer } from '../helpers.js';
import { FOLLOWING_WALK_MIN, FOLLOWING_WINDOW } from '../../src/posts/posts-repository.js';
import { client, countStatements, insertComment, insertPost, insertPosts } from './factories.js';

t.test('discover: Post shape, newest first, first 3 comments oldest first, likes of the caller', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const db = app.database.sqlite;
  const older = insertPost(db, { userId: alice.id, caption: 'older', createdAt: 1_700_000_000_000 });
  const newer = insertPost(db, { userId: alice.id, caption: 'newer', createdAt: 1_700_000_001_000 });
  insertPost(db, { userId: alice.id, isProfilePicture: true, createdAt: 1_700_000_002_000 });
  const asBob = client(app, bob.token);
  for (const text of ['one', 'two', 'three', 'four']) {
    t.equal((await asBob('POST', '/api/comment', { postId: older.id, comment: text })).status, 201);
  }
  t.equal((await asBob('POST', '/api/like', { postId: older.id })).status, 201);

  const res = await asBob('GET', '/api/discover-posts');
  t.equal(res.status, 200);
  t.same(
    res.json.map((p: { postid: number }) => p.postid),
    [newer.id, older.id],
    'newest first, the profile picture left out',
  );
  const post = res.json[1];
  t.match(post, {
    postid: older.id,
    s3Url: `/media/${older.mediaKey}/display.webp`,
    thumbnailUrl: `/media/${older.mediaKey}/thumb.webp`,
    width: 1440,
    height: 1080,
    caption: 'older',
    isAnonymous: false,
    created_at: new Date(1_700_000_000_000).toISOString(),
    username: 'alice',
    isOwner: false,
    likeCount: 1,
    likedByUser: true,
    commentCount: 4,
    cursor: `1700000000000.${older.id}`,
  });
  t.match(post.profilePictureUrl, /^\/media\/test-.*\/thumb\.webp$/, "the author's picture");
  t.same(
    post.comments.map((c: { content: string }) => c.content),
    ['one', 'two', 'three'],
  );
  t.match(post.comments[0], { username: 'bob', userid: bob.id, isOwner: true });
  t.same(res.json[0].comments, []);
  t.equal(res.json[0].likedByUser, false);

  const asAlice = client(app, alice.token);
  const mine = await asAlice('GET', '/api/discover-posts');
  t.equal(mine.json[1].isOwner, true);
  t.equal(mine.json[1].likedByUser, false, 'likedByUser is per caller');
  t.equal(mine.json[1].comments[0].isOwner, false);
});

t.test('text past ASCII reads back the same, sent as ASCII bytes (served twice: written, then kept)', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const db = app.database.sqlite;
  const caption = 'Prost! 🍺 Ä ö ü — „quotes" \\ \u2028 你好';
  const comment = 'ça va? 😀 ½ \u0000 end';
  const post = insertPost(db, { userId: alice.id, caption });
  insertComment(db, post.id, bob.id, comment);
  for (const round of ['written', 'kept']) {
    const res = await app.inject({ method: 'GET', url: '/api/discover-posts', headers: { authorization: `Bearer ${bob.token}` } });
    t.equal(res.statusCode, 200, round);
    t.ok(res.rawPayload.every((byte) => byte < 0x80), `${round}: every byte of the page is ASCII`);
    const [page] = res.json();
    t.equal(page.caption, caption, `${round}: the caption`);
    t.equal(page.comments[0].content, comment, `${round}: the comment`);
  }
});

t.test('keyset paging: two pages, no duplicates, newest first, then the end', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const db = app.database.sqlite;
  // Same timestamp for several posts: the id breaks the tie.
  const ids: number[] = [];
  for (let i = 0; i < 7; i++) ids.push(insertPost(db, { userId: alice.id, createdAt: 1_700_000_000_000 + Math.floor(i / 3) }).id);
  const expected = [...ids].sort((a, b) => b - a);
  const asBob = client(app, bob.token);
  await asBob('POST', '/api/account/alice/follow');

  for (const url of ['/api/discover-posts', '/api/followFeed', '/api/view-user-posts?username=alice&']) {
    const sep = url.includes('?') ? '' : '?';
    const first = await asBob('GET', `${url}${sep}limit=4`);
    t.equal(first.status, 200, url);
    const page1 = url.includes('view-user') ? first.json.posts : first.json;
    t.equal(page1.length, 4);
    const cursor = page1[3].cursor;
    const second = await asBob('GET', `${url}${sep}limit=4&cursor=${cursor}`);
    const page2 = url.includes('view-user') ? second.json.posts : second.json;
    t.equal(page2.length, 3, `${url}: fewer than limit means the end`);
    t.same([...page1, ...page2].map((p: { postid: number }) => p.postid), expected, `${url}: all posts once, newest first`);
  }
  const own = client(app, alice.token);
  const p1 = await own('GET', '/api/user-posts?limit=5');
  const p2 = await own('GET', `/api/user-posts?limit=5&cursor=${p1.json.posts[4].cursor}`);
  t.same([...p1.json.posts, ...p2.json.posts].map((p: { postid: number }) => p.postid), expected);
});

t.test('page parameters are checked', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const bob = await createUser('bob');
  const asBob = client(app, bob.token);
  insertPosts(app.database.sqlite, bob.id, 25);
  t.equal((await asBob('GET', '/api/discover-posts')).json.length, 20, 'default limit 20');
  t.equal((await asBob('GET', '/api/discover-posts?limit=1')).json.length, 1);
  for (const url of ['/api/discover-posts', '/api/followFeed', '/api/user-posts', '/api/view-user-posts?username=bob&']) {
    const sep = url.includes('?') ? '' : '?';
    for (const q of ['limit=0', 'limit=51', 'limit=abc', 'limit=2.5', 'cursor=abc', 'cursor=12', 'cursor=1.2.3', 'cursor=-1.5', 'cursor=9999999999999999.1']) {
      const res = await asBob('GET', `${url}${sep}${q}`);
      t.equal(res.status, 400, `${url} ${q}`);
      t.equal(res.json.error, 'invalid_request');
    }
  }
  t.equal((await asBob('GET', '/api/view-user-posts')).status, 400, 'username is required');
  t.equal((await asBob('GET', '/api/view-user-posts?username=nobody')).status, 404);
});

t.test('anonymity: nobody but the author learns who wrote an anonymous post', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const author = await createUser('zorro_secret');
  const reader = await createUser('reader');
  const db = app.database.sqlite;
  const picture = insertPost(db, { userId: author.id, isProfilePicture: true, createdAt: 1_600_000_000_000 });
  const anon = insertPost(db, { userId: author.id, isAnonymous: true, caption: 'who am i', createdAt: 1_700_000_001_000 });
  const visible = insertPost(db, { userId: author.id, caption: 'signed', createdAt: 1_700_000_000_000 });
  const asAuthor = client(app, author.token);
  const asReader = client(app, reader.token);
  // The author comments on and likes their own anonymous post.
  await asAuthor('POST', '/api/comment', { postId: anon.id, comment: 'my own secret' });
  await asAuthor('POST', '/api/like', { postId: anon.id });
  await asReader('POST', '/api/comment', { postId: anon.id, comment: 'nice' });
  await asReader('POST', '/api/account/zorro_secret/follow');

  const leaks = (body: string) =>
    body.toLowerCase().includes('zorro') ||
    body.includes(picture.mediaKey) ||
    new RegExp(`"userid":${author.id}[,}]`).test(body);

  const discover = await asReader('GET', '/api/discover-posts');
  const anonView = discover.json.find((p: { postid: number }) => p.postid === anon.id);
  t.match(anonView, { isAnonymous: true, username: null, profilePictureUrl: null, isOwner: false, likeCount: 1, commentCount: 2 });
  t.same(
    anonView.comments.map((c: { username: string | null; userid: number | null }) => [c.username, c.userid]),
    [
      [null, null],
      ['reader', reader.id],
    ],
    "the author's own comment is not signed",
  );
  t.notOk(leaks(JSON.stringify(anonView)), 'the anonymous post in discover names nobody');

  const comments = await asReader('GET', `/api/comment?postId=${anon.id}`);
  t.equal(comments.status, 200);
  t.notOk(leaks(comments.body), 'comment list');
  t.notOk(leaks((await asReader('GET', `/api/like?postId=${anon.id}`)).body), 'like answer');
  t.notOk(leaks((await asReader('DELETE', `/api/like?postId=${anon.id}`)).body), 'unlike answer (409)');
  t.notOk(leaks((await asReader('POST', '/api/like', { postId: anon.id })).body), 'like write answer');
  const follow = await asReader('GET', '/api/followFeed');
  t.same(follow.json.map((p: { postid: number }) => p.postid), [visible.id], 'following feed leaves anonymous posts out');
  const profile = await asReader('GET', '/api/view-user-posts?username=ZORRO_SECRET');
  t.equal(profile.status, 200);
  t.same(profile.json.posts.map((p: { postid: number }) => p.postid), [visible.id], 'profile never lists anonymous posts');
  t.equal(profile.json.postCount, 1, 'and does not count them');
  t.equal(profile.json.isFollowing, true);
  t.equal(profile.json.username, 'zorro_secret');

  // The author sees their own anonymous post, flagged and owned.
  const own = await asAuthor('GET', '/api/user-posts');
  t.equal(own.json.postCount, 2, 'own count includes the anonymous post, not the picture');
  t.match(own.json.posts[0], { postid: anon.id, isAnonymous: true, username: 'zorro_secret', isOwner: true });
  t.match(own.json.posts[0].comments[0], { username: 'zorro_secret', userid: author.id, isOwner: true });
  const ownDiscover = await asAuthor('GET', '/api/discover-posts');
  t.match(ownDiscover.json[0], { postid: anon.id, username: 'zorro_secret', isOwner: true });
});

t.test('user-posts: own profile with counters', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const me = await createUser('me', 'me@example.test');
  const fan = await createUser('fan');
  const db = app.database.sqlite;
  const pic = insertPost(db, { userId: me.id, isProfilePicture: true });
  const a = insertPost(db, { userId: me.id });
  insertPost(db, { userId: me.id, isAnonymous: true });
  const asFan = client(app, fan.token);
  await asFan('POST', '/api/like', { postId: a.id });
  await asFan('POST', '/api/comment', { postId: a.id, comment: 'hi' });
  await asFan('POST', '/api/comment', { postId: a.id, comment: 'again' });
  await asFan('POST', '/api/account/me/follow');
  await client(app, me.token)('POST', '/api/account/fan/follow');

  const res = await client(app, me.token)('GET', '/api/user-posts');
  t.equal(res.status, 200);
  const { posts, ...profile } = res.json;
  t.same(profile, {
    username: 'me',
    email: 'me@example.test',
    profilePictureUrl: `/media/${pic.mediaKey}/thumb.webp`,
    postCount: 2,
    totalLikes: 1,
    totalComments: 2,
    followerCount: 1,
    followingCount: 1,
    isPrivate: false,
  });
  t.equal(posts.length, 2);
});

t.test('following feed: only followed people, not yourself', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const me = await createUser('me');
  const friend = await createUser('friend');
  const stranger = await createUser('stranger');
  const db = app.database.sqlite;
  const fp = insertPost(db, { userId: friend.id });
  insertPost(db, { userId: stranger.id });
  insertPost(db, { userId: me.id });
  const asMe = client(app, me.token);
  t.same((await asMe('GET', '/api/followFeed')).json, [], 'empty before following anyone');
  await asMe('POST', '/api/account/friend/follow');
  t.same((await asMe('GET', '/api/followFeed')).json.map((p: { postid: number }) => p.postid), [fp.id]);
});

const AUTH_RECHECK = /^PRAGMA data_version$|FROM users WHERE sub = \?|revoked_tokens/;

t.test('a feed page costs the same number of SQL statements whatever its size', async (t) => {
  // Inline, so that every statement runs on the connection being counted.
  const { app, createUser } = await buildTestApp(t, { READ_WORKERS: '0' });
  const me = await createUser('me');
  const other = await createUser('other');
  const db = app.database.sqlite;
  const ids = [...insertPosts(db, other.id, 60), ...insertPosts(db, me.id, 60)];
  const asMe = client(app, me.token);
  await asMe('POST', '/api/account/other/follow');
  // Every post gets comments and a like, so every page needs first comments.
  for (const id of ids) {
    for (let i = 0; i < 4; i++) insertComment(db, id, other.id, `c${i}`, Date.now() + i);
  }

  const executed = countStatements(db, t);
  // Queries only: the page's BEGIN and COMMIT are checked apart. Kept first comments
  // are dropped before each read (comments_epoch moves): the most a page can cost.
  const statements = async (url: string, keep = false) => {
    if (!keep) db.exec('UPDATE comments_epoch SET n = n + 1');
    executed.sql.length = 0;
    const res = await app.inject({ method: 'GET', url, headers: bearer(me.token) });
    t.equal(res.statusCode, 200, url);
    const sql = executed.sql.map((s) => s.trim());
    const begin = sql.indexOf('BEGIN');
    t.ok(begin >= 0 && sql.lastIndexOf('BEGIN') === begin && sql.at(-1) === 'COMMIT', `${url} the page is read in one transaction`);
    // Who is asking is checked once a second at most (the user cache's PRAGMA data_version and
    // row, a token's revocation), whatever the page: on a busy machine a second can pass between
    // two pages, so those are not the page's to count.
    return sql.filter((s) => s !== 'BEGIN' && s !== 'COMMIT' && !AUTH_RECHECK.test(s)).length;
  };
  for (const url of ['/api/discover-posts?', '/api/followFeed?', '/api/user-posts?', '/api/view-user-posts?username=other&']) {
    const small = await statements(`${url}limit=5`);
    const large = await statements(`${url}limit=50`);
    t.equal(large, small, `${url} same statements for 5 and 50 posts (${small})`);
    t.ok(small <= 4, `${url} at most 4 statements (profile or feed_epoch, page, comments_epoch, first comments): ${small}`);
  }
  const readsFirstComments = () => executed.sql.some((s) => /JOIN comments c ON c\.id IN/.test(s));
  const cold = await statements('/api/discover-posts?limit=50');
  t.ok(readsFirstComments(), 'a page whose comments are not kept reads them');
  t.equal(await statements('/api/discover-posts?limit=50', true), cold - 1, 'read again with no comment changed: one statement fewer');
  t.notOk(readsFirstComments(), 'the first comments were kept');
});

t.test('the following feed gives the same pages whichever plan serves them', async (t) => {
  // Inline: the plan is told by the statements counted on this connection.
  const { app, createUser } = await buildTestApp(t, { READ_WORKERS: '0' });
  const db = app.database.sqlite;
  const me = await createUser('me');
  const asMe = client(app, me.token);
  const stranger = await createUser('stranger');
  const followees: number[] = [];
  for (let i = 0; i < FOLLOWING_WALK_MIN + 5; i++) {
    const u = await createUser(`pal${i}`);
    t.equal((await asMe('POST', `/api/account/pal${i}/follow`)).status, 200);
    followees.push(u.id);
  }
  // Interleaved in time: followees' public and anonymous posts, and strangers' posts.
  let clock = Date.now() - 1_000_000;
  for (let round = 0; round < 3; round++) {
    for (const id of followees) {
      insertPost(db, { userId: id, createdAt: clock++ });
      if (id % 4 === 0) insertPost(db, { userId: id, isAnonymous: true, createdAt: clock++ });
      if (id % 3 === 0) insertPost(db, { userId: stranger.id, createdAt: clock++ });
    }
  }
  const expected = () =>
    (
      db
        .prepare(
          `SELECT p.id FROM posts p JOIN follows f ON f.followee_id = p.user_id AND f.follower_id = ?
           WHERE p.is_profile_picture = 0 AND p.is_anonymous = 0 ORDER BY p.created_at DESC, p.id DESC`,
        )
        .all(me.id) as { id: number }[]
    ).map((r) => r.id);

  // Page statements (.all) run for the first page, told apart by their SQL: the cached
  // page, the walk through the recent window, the merge of the followees' posts.
  const pageStatements = countStatements(db, t, ['all']);
  const plan = (sql: string) =>
    sql.includes('= @epoch') ? 'cached' : sql.includes('LIMIT @scan') ? 'walk' : sql.includes('FROM follows f') ? 'merge' : 'other';
  const readAll = async () => {
    const ids: number[] = [];
    let cursor = '';
    for (;;) {
      const res = await asMe('GET', `/api/followFeed?limit=20${cursor}`);
      t.equal(res.status, 200);
      ids.push(...res.json.map((p: { postid: number }) => p.postid));
      if (res.json.length < 20) return ids;
      cursor = `&cursor=${encodeURIComponent(res.json.at(-1).cursor)}`;
    }
  };
  const firstPagePlan = async () => {
    pageStatements.sql = [];
    await asMe('GET', '/api/followFeed?limit=20');
    return pageStatements.sql.map(plan).filter((p) => p !== 'other');
  };

  t.same(await firstPagePlan(), ['walk'], 'recent posts are mostly by followees: the walk answers');
  t.same(await firstPagePlan(), ['cached'], 'read again with nothing new: the cached first page');
  t.same(await readAll(), expected(), 'every followed public post, newest first, no anonymous ones');

  // A stranger posts more than the walk looks at: the window holds no followed post.
  insertPosts(db, stranger.id, 20 * FOLLOWING_WINDOW + 10, clock);
  t.same(await firstPagePlan(), ['cached', 'walk', 'merge'], 'the cached page is out of date, the walk falls short and the merge answers');
  t.same(await readAll(), expected(), 'the same pages from the merge');
});

t.test('the following feed\'s first page shows at once every change to what it lists', async (t) => {
  // Runs inline and (feeds-read-workers.test.ts) on read workers, each with its own cached pages.
  const { app, createUser } = await buildTestApp(t);
  const me = await createUser('me');
  const ann = await createUser('ann');
  const ben = await createUser('ben');
  const asMe = client(app, me.token);
  const asAnn = client(app, ann.token);
  const asBen = client(app, ben.token);
  const db = app.database.sqlite;
  insertPosts(db, ann.id, 3, 1_700_000_000_000);
  insertPosts(db, ben.id, 3, 1_700_000_000_100);
  for (const name of ['ann', 'ben']) t.equal((await asMe('POST', `/api/account/${name}/follow`)).status, 200);
  const expected = () =>
    (
      db
        .prepare(
          `SELECT p.id FROM posts p JOIN follows f ON f.followee_id = p.user_id AND f.follower_id = ?
           WHERE p.is_profile_picture = 0 AND p.is_anonymous = 0 ORDER BY p.created_at DESC, p.id DESC LIMIT ?`,
        )
        .all(me.id, 4) as { id: number }[]
    ).map((r) => r.id);
  const firstPage = async (limit = 4) => {
    const res = await asMe('GET', `/api/followFeed?limit=${limit}`);
    t.equal(res.status, 200);
    return res.json as { postid: number; likeCount: number; likedByUser: boolean; commentCount: number; comments: { content: string }[]; username: string }[];
  };
  const ids = async (limit = 4) => (await firstPage(limit)).map((p) => p.postid);
  // Several reads, so that every read worker has the page cached before each change.
  const readsAgree = async (what: string) => {
    for (let i = 0; i < 4; i++) t.same(await ids(), expected(), what);
  };

  await readsAgree('the newest 4 followed posts');
  const newest = insertPost(db, { userId: ann.id, createdAt: 1_700_000_001_000 });
  t.equal((await ids())[0], newest.id, 'a followee posts: first at once');
  await readsAgree('and the rest shifts down');

  const anonymous = insertPost(db, { userId: ann.id, isAnonymous: true, createdAt: 1_700_000_002_000 });
  t.notOk((await ids()).includes(anonymous.id), 'an anonymous post is not listed');
  insertPost(db, { userId: me.id, isProfilePicture: true, createdAt: 1_700_000_003_000 });
  await readsAgree('a profile picture changes nothing');

  // Counters, likedByUser and first comments are read fresh for a cached page.
  t.equal((await asMe('POST', '/api/like', { postId: newest.id })).status, 201);
  t.equal((await asBen('POST', '/api/comment', { postId: newest.id, comment: 'cheers' })).status, 201);
  for (let i = 0; i < 4; i++) {
    const top = (await firstPage())[0]!;
    t.match(top, { postid: newest.id, likeCount: 1, likedByUser: true, commentCount: 1, comments: [{ content: 'cheers' }] });
  }

  t.equal((await asAnn('DELETE', `/api/post?postId=${newest.id}`)).status, 200);
  t.notOk((await ids()).includes(newest.id), 'a deleted post leaves at once');
  await readsAgree('the next one moves up');

  t.equal((await asMe('DELETE', '/api/account/ann/follow')).status, 200);
  t.same(
    (await firstPage()).map((p) => p.username),
    ['ben', 'ben', 'ben'],
    'after unfollowing ann: only ben\'s three posts',
  );
  await readsAgree('still only ben\'s');
  t.equal((await asMe('POST', '/api/account/ann/follow')).status, 200);
  await readsAgree('following ann again brings hers back');

  // Each page size has its own first page.
  t.same(await ids(2), expected().slice(0, 2), 'a first page of 2');
  await readsAgree('the page of 4 is still right');
  t.same(await ids(2), expected().slice(0, 2), 'and of 2');
});

t.test('the first comments under a post show at once every change to them', async (t) => {
  // Runs inline and (feeds-read-workers.test.ts) on read workers, each keeping first comments of its own.
  const { app, createUser, tokenFor } = await buildTestApp(t);
  const me = await createUser('me');
  const ann = await createUser('ann');
  const ben = await createUser('ben');
  const asMe = client(app, me.token);
  const asBen = client(app, ben.token);
  const db = app.database.sqlite;
  const post = insertPost(db, { userId: ann.id, createdAt: 1_700_000_000_000 });
  t.equal((await asMe('POST', '/api/account/ann/follow')).status, 200);
  const ids = new Map<string, number>();
  const comment = async (as: typeof asMe, text: string) => {
    const res = await as('POST', '/api/comment', { postId: post.id, comment: text });
    t.equal(res.status, 201, `comment ${text}`);
    ids.set(text, res.json.comment_id);
  };
  const uncomment = async (text: string) => t.equal((await asBen('DELETE', `/api/comment?commentId=${ids.get(text)}`)).status, 200, `delete ${text}`);
  // Every feed and profile page, several times each, so that every read worker has kept them before each change.
  const pagesShow = async (count: number, shown: string[], what: string) => {
    for (const url of ['/api/discover-posts', '/api/followFeed', '/api/view-user-posts?username=ann']) {
      for (let i = 0; i < 3; i++) {
        const res = await asMe('GET', url);
        t.equal(res.status, 200);
        const list = Array.isArray(res.json) ? res.json : res.json.posts;
        const p = list.find((x: { postid: number }) => x.postid === post.id);
        t.same(
          { count: p.commentCount, shown: p.comments.map((c: { username: string; content: string }) => `${c.username}: ${c.content}`) },
          { count, shown },
          `${url}: ${what}`,
        );
      }
    }
  };

  await pagesShow(0, [], 'no comments yet');
  await comment(asBen, 'one');
  await comment(asBen, 'two');
  await pagesShow(2, ['ben: one', 'ben: two'], 'two comments');
  await comment(asMe, 'three');
  await pagesShow(3, ['ben: one', 'ben: two', 'me: three'], 'a third');
  await comment(asBen, 'four');
  await pagesShow(4, ['ben: one', 'ben: two', 'me: three'], 'a fourth is counted, not shown');
  await uncomment('two');
  await pagesShow(3, ['ben: one', 'me: three', 'ben: four'], 'a shown comment deleted: the fourth moves up');
  // A deletion and an addition between two reads leave the count as it was.
  await uncomment('one');
  await comment(asBen, 'five');
  await pagesShow(3, ['me: three', 'ben: four', 'ben: five'], 'one deleted, one added: same count, other comments');

  // A commenter's new name (a token with other claims) shows under the post.
  const renamed = client(app, await tokenFor({ sub: ben.sub, username: 'benny' }));
  t.equal((await renamed('GET', '/api/user-posts')).json.username, 'benny', 'ben is now benny');
  await pagesShow(3, ['me: three', 'benny: four', 'benny: five'], 'the new name under the post');

  // No route edits comments; an edit in the database shows all the same.
  db.prepare('UPDATE comments SET content = ? WHERE id = ?').run('four, edited', ids.get('four'));
  await pagesShow(3, ['me: three', 'benny: four, edited', 'benny: five'], 'an edited comment');
});

t.test('without its feed_epoch row the following feed still answers, uncached', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const me = await createUser('me');
  const ann = await createUser('ann');
  const asMe = client(app, me.token);
  const db = app.database.sqlite;
  const [first] = insertPosts(db, ann.id, 1, 1_700_000_000_000);
  t.equal((await asMe('POST', '/api/account/ann/follow')).status, 200);
  db.exec('DELETE FROM feed_epoch');
  for (let i = 0; i < 3; i++) {
    const res = await asMe('GET', '/api/followFeed');
    t.equal(res.status, 200);
    t.same(res.json.map((p: { postid: number }) => p.postid), [first]);
  }
  const next = insertPost(db, { userId: ann.id, createdAt: 1_700_000_001_000 });
  t.same((await asMe('GET', '/api/followFeed')).json.map((p: { postid: number }) => p.postid), [next.id, first], 'a new post shows at once');
});

t.test('every feed route needs a valid token', async (t) => {
  const { app } = await buildTestApp(t);
  for (const url of ['/api/discover-posts', '/api/followFeed', '/api/user-posts', '/api/view-user-posts?username=a']) {
    const none = await app.inject({ method: 'GET', url });
    t.equal(none.statusCode, 401, url);
    t.equal(none.json().error, 'unauthorized');
    const bad = await app.inject({ method: 'GET', url, headers: { authorization: 'Bearer abc.def.ghi' } });
    t.equal(bad.statusCode, 401, url);
  }
});
