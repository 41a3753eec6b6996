import type Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { client, insertPost, postCounters, userCounters } from '../api/factories.js';
import { buildTestApp } from '../helpers.js';
import { presign } from '../media/upload-helpers.js';

type Page = Array<{ postid: number; username: string | null; likeCount: number; commentCount: number; comments: Array<{ content: string; username: string | null }> }>;

/** Every counter of every user and post, next to what the rows say they should be (suspended people's rows not counted). */
function countersAreExact(db: Database.Database) {
  const users = db.prepare(`
    SELECT u.id, u.follower_count = (SELECT count(*) FROM follows f JOIN users x ON x.id = f.follower_id WHERE f.followee_id = u.id AND x.suspended_at IS NULL) AS followers,
      u.following_count = (SELECT count(*) FROM follows f JOIN users x ON x.id = f.followee_id WHERE f.follower_id = u.id AND x.suspended_at IS NULL) AS following,
      u.likes_received = (SELECT coalesce(sum(p.like_count), 0) FROM posts p WHERE p.user_id = u.id AND p.is_profile_picture = 0) AS likes,
      u.comments_received = (SELECT coalesce(sum(p.comment_count), 0) FROM posts p WHERE p.user_id = u.id AND p.is_profile_picture = 0) AS comments
    FROM users u WHERE u.deleted_at IS NULL`).all() as Array<Record<string, number>>;
  const posts = db.prepare(`
    SELECT p.id, p.like_count = (SELECT count(*) FROM likes l JOIN users x ON x.id = l.user_id WHERE l.post_id = p.id AND x.suspended_at IS NULL) AS likes,
      p.comment_count = (SELECT count(*) FROM comments c JOIN users x ON x.id = c.user_id WHERE c.post_id = p.id AND x.suspended_at IS NULL) AS comments
    FROM posts p`).all() as Array<Record<string, number>>;
  return [...users, ...posts].every((r) => Object.entries(r).every(([k, v]) => k === 'id' || v === 1));
}

t.test('a suspended account cannot write, and its content is hidden everywhere at once with exact counts', async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'olga' });
  const db = app.database.sqlite;
  const olga = await createUser('olga');
  const sam = await createUser('sam');
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const asSam = client(app, sam.token);
  const asAlice = client(app, alice.token);
  const asBob = client(app, bob.token);
  const asOlga = client(app, olga.token);
  const samPost = insertPost(db, { userId: sam.id, caption: 'sam public', createdAt: 1_000 });
  const samSecret = insertPost(db, { userId: sam.id, caption: 'sam anonymous', isAnonymous: true, createdAt: 1_500 });
  const alicePost = insertPost(db, { userId: alice.id, caption: 'alice', createdAt: 2_000 });
  await asSam('POST', '/api/like', { postId: alicePost.id });
  await asBob('POST', '/api/like', { postId: alicePost.id });
  await asSam('POST', '/api/comment', { postId: alicePost.id, comment: 'from sam' });
  await asBob('POST', '/api/comment', { postId: alicePost.id, comment: 'from bob' });
  // More than one of sam's likes and comments land on one author, and comments on one post: grouped counts.
  const aliceOther = insertPost(db, { userId: alice.id, caption: 'alice again', createdAt: 2_500 });
  await asSam('POST', '/api/like', { postId: aliceOther.id });
  await asSam('POST', '/api/comment', { postId: alicePost.id, comment: 'sam again' });
  await asSam('POST', '/api/comment', { postId: aliceOther.id, comment: 'sam on the other' });
  await asBob('POST', '/api/like', { postId: samPost.id });
  await asSam('POST', '/api/account/alice/follow');
  await asAlice('POST', '/api/account/sam/follow');
  await asBob('POST', '/api/account/sam/follow');
  const before = { alice: userCounters(db, alice.id), bob: userCounters(db, bob.id), post: postCounters(db, alicePost.id) };

  t.equal((await asOlga('POST', '/api/admin/users/olga/suspend', { reason: 'x' })).status, 400, 'not oneself');
  const suspended = await asOlga('POST', '/api/admin/users/SAM/suspend', { reason: 'Spamming the feed.' });
  t.equal(suspended.status, 200);
  t.equal((await asOlga('POST', '/api/admin/users/sam/suspend', { reason: 'again' })).status, 409);

  // Writes (and everything else but who they are and logout) are refused.
  for (const [method, url, body] of [
    ['POST', '/api/like', { postId: alicePost.id }],
    ['POST', '/api/comment', { postId: alicePost.id, comment: 'hi' }],
    ['POST', '/api/account/bob/follow', undefined],
    ['POST', '/api/reports', { kind: 'post', id: alicePost.id, reason: 'spam' }],
    ['DELETE', '/api/account', { confirmUsername: 'sam' }],
    ['GET', '/api/discover-posts', undefined],
  ] as const) {
    const res = await asSam(method, url, body);
    t.equal(res.status, 403, `${method} ${url} refused`);
    t.equal(res.json.error, 'account_suspended');
  }
  const presigned = await presign(app, sam.token, { fileName: 'a.jpg', fileType: 'image/jpeg' });
  t.equal(presigned.statusCode, 403, 'no uploads either');
  t.match((await asSam('GET', '/api/me')).json, { username: 'sam', suspension: { reason: 'Spamming the feed.' } }, 'they can see why');
  t.equal((await asSam('DELETE', '/api/session')).status, 200, 'and sign out');

  const discover = (await asBob('GET', '/api/discover-posts')).json as Page;
  t.same(discover.map((p) => p.postid), [aliceOther.id, alicePost.id], 'their posts, anonymous too, leave Discover');
  t.same(discover[1]!.comments.map((c) => c.content), ['from bob'], 'their comments leave the feed');
  t.match(discover[1], { likeCount: 1, commentCount: 1 }, 'and its counts');
  t.match(discover[0], { likeCount: 0, commentCount: 0, comments: [] });
  t.same((await asBob('GET', '/api/followFeed')).json, [], 'the following feed');
  t.equal((await asBob('GET', '/api/view-user-posts?username=sam')).status, 404, 'their profile');
  t.same((await asBob('GET', '/api/search-profiles?username=sa')).json, [], 'search');
  t.same(((await asBob('GET', `/api/comment?postId=${alicePost.id}`)).json as Array<{ content: string }>).map((c) => c.content), ['from bob']);
  t.equal((await asBob('POST', '/api/like', { postId: samSecret.id })).status, 404, 'their posts cannot be liked');
  t.match(userCounters(db, alice.id), { followerCount: 0, followingCount: 0, likesReceived: 1, commentsReceived: 1 }, 'counts exact');
  t.match(postCounters(db, alicePost.id), { likeCount: 1, commentCount: 1 });
  t.match(userCounters(db, bob.id), { followingCount: 0 });
  t.ok(countersAreExact(db), 'every counter agrees with the rows');
  t.match((await asOlga('GET', '/api/admin/overview')).json, { figures: { suspendedUsers: 1 }, suspended: [{ username: 'sam', reason: 'Spamming the feed.' }] });

  t.equal((await asOlga('DELETE', '/api/admin/users/sam/suspend', { reason: 'Promised to stop.' })).status, 200);
  t.equal((await asOlga('DELETE', '/api/admin/users/sam/suspend', {})).status, 409, 'not suspended any more');
  t.same({ alice: userCounters(db, alice.id), bob: userCounters(db, bob.id), post: postCounters(db, alicePost.id) }, before, 'lifting restores every count');
  t.same(((await asBob('GET', '/api/discover-posts')).json as Page).map((p) => p.postid), [aliceOther.id, alicePost.id, samSecret.id, samPost.id]);
  t.same(((await client(app, await tokenAgain(app, sam))('GET', '/api/discover-posts')).json as Page).length, 4, 'sam can read again');
  const log = (await asOlga('GET', '/api/admin/overview')).json.actions as Array<{ action: string; target: string; reason: string }>;
  t.same(log.map((a) => [a.action, a.target, a.reason]), [['unsuspend', 'sam', 'Promised to stop.'], ['suspend', 'sam', 'Spamming the feed.']]);
});

/** sam's first token was revoked by logout: a new one, as signing in again gives. */
async function tokenAgain(app: FastifyInstance, user: { sub: string; username: string }) {
  const { issueAccessToken } = await import('../../src/kernel/auth/issue.js');
  return issueAccessToken(app.signingKey!, app.config.auth, { sub: user.sub, username: user.username, email: `${user.username}@example.test` });
}

t.test('removing a suspended account, and removing things while suspended, keeps the counts exact', async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'olga' });
  const db = app.database.sqlite;
  const olga = await createUser('olga');
  const sam = await createUser('sam');
  const alice = await createUser('alice');
  const asSam = client(app, sam.token);
  const asOlga = client(app, olga.token);
  const alicePost = insertPost(db, { userId: alice.id, caption: 'alice' });
  await asSam('POST', '/api/like', { postId: alicePost.id });
  const c = (await asSam('POST', '/api/comment', { postId: alicePost.id, comment: 'one' })).json;
  await asSam('POST', '/api/comment', { postId: alicePost.id, comment: 'two' });
  await asSam('POST', '/api/account/alice/follow');
  await asOlga('POST', '/api/admin/users/sam/suspend', { reason: 'r' });
  t.equal((await asOlga('DELETE', `/api/admin/comments/${c.comment_id}`, { reason: 'gone' })).status, 200, 'an operator removes a hidden comment');
  t.ok(countersAreExact(db), 'without counting it out twice');
  const { createStandaloneAccountRemoval } = await import('../../src/person-steps.js');
  await createStandaloneAccountRemoval({ sqlite: db, storage: app.storage, log: app.log }).remove(sam.id);
  t.ok(countersAreExact(db), 'removing the suspended account');
  t.match(userCounters(db, alice.id), { followerCount: 0, likesReceived: 0, commentsReceived: 0 });
  t.match(postCounters(db, alicePost.id), { likeCount: 0, commentCount: 0, likes: 0, comments: 0 });
});

t.test('blocking by name hides named content both ways, stops follows, likes and comments, and leaves anonymous posts alone', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const db = app.database.sqlite;
  const ann = await createUser('ann');
  const ben = await createUser('ben');
  const cat = await createUser('cat');
  const asAnn = client(app, ann.token);
  const asBen = client(app, ben.token);
  const asCat = client(app, cat.token);
  const benPost = insertPost(db, { userId: ben.id, caption: 'ben', createdAt: 1_000 });
  const benSecret = insertPost(db, { userId: ben.id, caption: 'ben anon', isAnonymous: true, createdAt: 1_500 });
  const annPost = insertPost(db, { userId: ann.id, caption: 'ann', createdAt: 2_000 });
  const catPost = insertPost(db, { userId: cat.id, caption: 'cat', createdAt: 3_000 });
  await asBen('POST', '/api/comment', { postId: catPost.id, comment: 'ben on cat' });
  await asAnn('POST', '/api/comment', { postId: catPost.id, comment: 'ann on cat' });
  await asAnn('POST', '/api/account/ben/follow');
  await asBen('POST', '/api/account/ann/follow');
  await asCat('POST', '/api/account/ben/follow');

  t.equal((await asAnn('POST', '/api/account/ann/block')).status, 400, 'not oneself');
  t.equal((await asAnn('POST', '/api/account/nobody/block')).status, 404);
  const blocked = await asAnn('POST', '/api/account/BEN/block');
  t.same(blocked.json, { blocked: true });
  t.match(userCounters(db, ann.id), { followerCount: 0, followingCount: 0 }, 'follows both ways removed with their counts');
  t.match(userCounters(db, ben.id), { followerCount: 1, followingCount: 0 }, "cat's follow of ben stays");

  const ids = (page: Page) => page.map((p) => p.postid);
  t.same(ids((await asAnn('GET', '/api/discover-posts')).json), [catPost.id, annPost.id, benSecret.id], "the blocker sees none of ben's named posts; anonymous ones stay (docs/api.md)");
  t.same(ids((await asBen('GET', '/api/discover-posts')).json), [catPost.id, benSecret.id, benPost.id], 'the blocked sees none of theirs');
  t.same(ids((await asCat('GET', '/api/discover-posts')).json), [catPost.id, annPost.id, benSecret.id, benPost.id], 'others see all');
  const annCat = ((await asAnn('GET', '/api/discover-posts')).json as Page)[0]!;
  t.same(annCat.comments.map((c) => c.content), ['ann on cat'], "ben's comments hidden from ann");
  const benCat = ((await asBen('GET', '/api/discover-posts')).json as Page)[0]!;
  t.same(benCat.comments.map((c) => c.content), ['ben on cat'], "ann's hidden from ben under the post too, though cat's page kept both");
  t.same(((await asCat('GET', '/api/discover-posts')).json as Page)[0]!.comments.map((c) => c.content), ['ben on cat', 'ann on cat']);
  t.same(((await asBen('GET', `/api/comment?postId=${catPost.id}`)).json as Array<{ content: string }>).map((c) => c.content), ['ben on cat'], "and ann's from ben");
  t.same(((await asCat('GET', `/api/comment?postId=${catPost.id}`)).json as unknown[]).length, 2);

  t.match((await asAnn('GET', '/api/view-user-posts?username=ben')).json, { username: 'ben', isBlocked: true, posts: [] }, 'the blocker sees who they blocked');
  t.equal((await asBen('GET', '/api/view-user-posts?username=ann')).status, 404, 'the blocked does not find the blocker');
  t.same((await asAnn('GET', '/api/search-profiles?username=be')).json, [], 'search, one way');
  t.same((await asBen('GET', '/api/search-profiles?username=an')).json, [], 'and the other');
  t.same(((await asCat('GET', '/api/search-profiles?username=an')).json as Array<{ username: string }>).map((m) => m.username), ['ann']);

  t.equal((await asAnn('POST', '/api/account/ben/follow')).status, 409, 'the blocker cannot follow');
  t.equal((await asBen('POST', '/api/account/ann/follow')).status, 404, 'nor the blocked');
  t.equal((await asAnn('POST', '/api/like', { postId: benPost.id })).status, 404, 'no likes either way');
  t.equal((await asBen('POST', '/api/like', { postId: annPost.id })).status, 404);
  t.equal((await asBen('POST', '/api/comment', { postId: annPost.id, comment: 'hey' })).status, 404, 'no comments either way');
  t.equal((await asAnn('POST', '/api/comment', { postId: benPost.id, comment: 'hey' })).status, 404);
  const benUnread = (await asBen('GET', '/api/notifications/unread')).json.unread;
  t.equal((await asAnn('POST', '/api/like', { postId: benSecret.id })).status, 201, 'an anonymous post takes a like from anyone who sees it: a refusal would name its author');
  t.equal((await asAnn('POST', '/api/comment', { postId: benSecret.id, comment: 'anon ok' })).status, 201);
  t.same(((await asBen('GET', `/api/comment?postId=${benSecret.id}`)).json as unknown[]).length, 0, "but ann's named comment stays hidden from ben");
  t.equal((await asBen('GET', '/api/notifications/unread')).json.unread, benUnread, 'and nothing of ann reaches his bell');
  t.equal((await asBen('POST', '/api/account/ann/block')).status, 404, 'ann does not exist for ben');

  const list = (await asAnn('GET', '/api/blocks')).json.blocks;
  t.match(list, [{ username: 'ben' }]);
  t.same((await asAnn('DELETE', '/api/account/ben/block')).json, { blocked: false });
  t.equal(userCounters(db, ann.id).followingCount, 0, 'unblocking does not restore follows');
  t.same(ids((await asAnn('GET', '/api/discover-posts')).json), [catPost.id, annPost.id, benSecret.id, benPost.id], 'unblocked: all back');
  t.same((await asAnn('GET', '/api/blocks')).json.blocks, []);
  t.match(db.prepare('SELECT block_count FROM users WHERE id IN (?, ?)').all(ann.id, ben.id), [{ block_count: 0 }, { block_count: 0 }]);
});

t.test('blocking the author of an anonymous post hides that post only and never says who it is', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const db = app.database.sqlite;
  const ann = await createUser('ann');
  const ben = await createUser('benedict');
  const asAnn = client(app, ann.token);
  const secret = insertPost(db, { userId: ben.id, caption: 'who am i', isAnonymous: true, createdAt: 1_000 });
  const benPublic = insertPost(db, { userId: ben.id, caption: 'me', createdAt: 2_000 });
  const own = insertPost(db, { userId: ann.id, caption: 'mine', isAnonymous: true, createdAt: 3_000 });

  t.equal((await asAnn('POST', `/api/posts/${own.id}/block-author`)).status, 400, 'not on your own post');
  t.equal((await asAnn('POST', '/api/posts/999/block-author')).status, 404);
  const res = await asAnn('POST', `/api/posts/${secret.id}/block-author`);
  t.same(res.json, { blocked: true });
  t.notMatch(res.body, /benedict/);
  const list = await asAnn('GET', '/api/blocks');
  t.match(list.json.blocks, [{ username: null, profilePictureUrl: null }], 'the list shows no name');
  t.notMatch(list.body, /benedict/);
  t.same(((await asAnn('GET', '/api/discover-posts')).json as Page).map((p) => p.postid), [own.id, benPublic.id], 'that post is gone, nothing else');
  t.equal((await asAnn('GET', '/api/view-user-posts?username=benedict')).status, 200, 'their profile is as it was');
  t.equal((await asAnn('DELETE', '/api/blocks/999')).status, 404);
  t.same((await asAnn('DELETE', `/api/blocks/${list.json.blocks[0].blockId}`)).json, { blocked: false });
  t.same(((await asAnn('GET', '/api/discover-posts')).json as Page).map((p) => p.postid), [own.id, benPublic.id, secret.id]);
  // Someone else's block id is not theirs to lift.
  await asAnn('POST', `/api/posts/${secret.id}/block-author`);
  const blockId = (await asAnn('GET', '/api/blocks')).json.blocks[0].blockId;
  t.equal((await client(app, ben.token)('DELETE', `/api/blocks/${blockId}`)).status, 404);
});
