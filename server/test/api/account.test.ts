import t from 'tap';
import { displayKey, thumbKey } from '../../src/kernel/storage/media-keys.js';
import { bearer, buildTestApp } from '../helpers.js';
import { client, insertPost, postCounters, userCounters } from './factories.js';

t.test('a removed account is gone everywhere in the next request, and every counter stays exact', async (t) => {
  // Feed pages on a read worker, as in production: its caches must let go too.
  const { app, createUser } = await buildTestApp(t, { READ_WORKERS: '1' });
  const { sqlite } = app.database;
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const carol = await createUser('carol');
  const asAlice = client(app, alice.token);
  const asBob = client(app, bob.token);
  const asCarol = client(app, carol.token);

  const alicePost = insertPost(sqlite, { userId: alice.id, caption: 'alice was here' });
  const aliceAnon = insertPost(sqlite, { userId: alice.id, caption: 'secret', isAnonymous: true });
  const bobPost = insertPost(sqlite, { userId: bob.id, caption: 'bob post' });
  for (const key of [displayKey(alicePost.mediaKey), thumbKey(alicePost.mediaKey)]) await app.storage.write(key, Buffer.from('img'), 'image/webp');

  await asBob('POST', '/api/account/alice/follow');
  await asAlice('POST', '/api/account/bob/follow');
  await asCarol('POST', '/api/account/bob/follow');
  await asBob('POST', '/api/like', { postId: alicePost.id });
  await asBob('POST', '/api/comment', { postId: alicePost.id, comment: 'nice' });
  await asAlice('POST', '/api/like', { postId: bobPost.id });
  await asCarol('POST', '/api/like', { postId: bobPost.id });
  await asAlice('POST', '/api/comment', { postId: bobPost.id, comment: 'from alice' });
  await asCarol('POST', '/api/comment', { postId: bobPost.id, comment: 'from carol' });

  // Warm every cache first: Discover, the following feed's first page, the comments under bob's post.
  t.equal((await asBob('GET', '/api/discover-posts')).json.length, 3);
  t.equal((await asBob('GET', '/api/followFeed')).json.length, 1);
  t.equal((await asCarol('GET', '/api/discover-posts')).json.find((p: { postid: number }) => p.postid === bobPost.id).comments.length, 2);

  const wrong = await asAlice('DELETE', '/api/account', { confirmUsername: 'bob' });
  t.equal(wrong.status, 400, 'the confirmation must name the account');
  t.match(wrong.json, { error: 'invalid_request', message: /confirm with your username/ });
  t.equal((await asBob('GET', '/api/discover-posts')).json.length, 3, 'a refused removal changes nothing');

  const removed = await asAlice('DELETE', '/api/account', { confirmUsername: 'Alice' });
  t.equal(removed.status, 200);
  t.same(removed.json, { deleted: true });

  const discover = (await asBob('GET', '/api/discover-posts')).json as Array<{ postid: number; likeCount: number; commentCount: number; comments: unknown[] }>;
  t.same(discover.map((p) => p.postid), [bobPost.id], 'Discover: only bob’s post');
  t.equal(discover[0]!.likeCount, 1, 'alice’s like is gone from the count');
  t.equal(discover[0]!.commentCount, 1);
  t.equal(discover[0]!.comments.length, 1, 'and her comment from the list');
  t.same((await asBob('GET', '/api/followFeed')).json, [], 'the following feed forgets her');
  t.equal((await asBob('GET', '/api/view-user-posts?username=alice')).status, 404, 'her profile is gone');
  t.same((await asBob('GET', '/api/search-profiles?username=ali')).json, [], 'search does not find her');
  t.same((await asBob('GET', '/api/search-profiles?username=removed')).json, [], 'nor her tombstone');
  t.same((await asBob('GET', '/api/account/bob/followers')).json, [{ username: 'carol' }]);
  t.equal((await asBob('GET', `/api/comment?postId=${alicePost.id}`)).status, 404);
  t.equal((await asBob('GET', `/api/comment?postId=${bobPost.id}`)).json.length, 1);

  const me = (await asBob('GET', '/api/user-posts')).json;
  t.match(me, { postCount: 1, totalLikes: 1, totalComments: 1, followerCount: 1, followingCount: 0 }, 'bob’s counters');
  t.same(userCounters(sqlite, bob.id), { postCount: 1, publicPostCount: 1, likesReceived: 1, commentsReceived: 1, followerCount: 1, followingCount: 0 });
  t.same(userCounters(sqlite, carol.id), { postCount: 0, publicPostCount: 0, likesReceived: 0, commentsReceived: 0, followerCount: 0, followingCount: 1 });
  t.match(postCounters(sqlite, bobPost.id), { likeCount: 1, likes: 1, commentCount: 1, comments: 1 });
  t.equal(sqlite.prepare('SELECT count(*) FROM posts WHERE id IN (?, ?)').pluck().get(alicePost.id, aliceAnon.id), 0, 'anonymous posts too');
  t.equal(await app.storage.stat(displayKey(alicePost.mediaKey)), null, 'her images are deleted from storage');
  t.equal(await app.storage.stat(thumbKey(alicePost.mediaKey)), null);

  t.equal((await app.inject({ url: '/api/user-posts', headers: bearer(alice.token) })).statusCode, 401, 'her token no longer works');
  t.equal((await asAlice('DELETE', '/api/account', { confirmUsername: 'alice' })).status, 401);
});

t.test('bad removal requests are refused clearly', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const asAlice = client(app, alice.token);
  for (const body of [undefined, {}, { confirmUsername: 5 }, { confirmUsername: 'alice', extra: 1 }]) {
    const res = await asAlice('DELETE', '/api/account', body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.ok(res.json.error && res.json.message);
  }
  t.equal((await asAlice('GET', '/api/user-posts')).status, 200, 'still there');
});
