import t from 'tap';
import { buildTestApp } from '../helpers.js';
import { client, insertPost, postCounters, userCounters } from './factories.js';

t.test('like, read, unlike: answers and counters', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const author = await createUser('author');
  const bob = await createUser('bob');
  const carol = await createUser('carol');
  const db = app.database.sqlite;
  const post = insertPost(db, { userId: author.id });
  const asBob = client(app, bob.token);
  const asCarol = client(app, carol.token);

  t.same((await asBob('GET', `/api/like?postId=${post.id}`)).json, { likeCount: 0, likedByUser: false });
  const liked = await asBob('POST', '/api/like', { postId: post.id });
  t.equal(liked.status, 201);
  t.same(liked.json, { likeCount: 1, likedByUser: true });
  const carolLikes = await asCarol('POST', '/api/like', { postId: String(post.id) });
  t.equal(carolLikes.status, 201, 'postId as a numeric string');
  t.same(carolLikes.json, { likeCount: 2, likedByUser: true });
  t.same((await asBob('GET', `/api/like?postId=${post.id}`)).json, { likeCount: 2, likedByUser: true });
  t.equal(userCounters(db, author.id).likesReceived, 2, "the author's likes_received follows");

  const twice = await asBob('POST', '/api/like', { postId: post.id });
  t.equal(twice.status, 409);
  t.same(twice.json, { error: 'conflict', message: 'You already like this post.' });
  t.match(postCounters(db, post.id), { likeCount: 2, likes: 2 }, 'a second like changes nothing');

  const unliked = await asBob('DELETE', `/api/like?postId=${post.id}`);
  t.equal(unliked.status, 200);
  t.same(unliked.json, { likeCount: 1, likedByUser: false });
  const again = await asBob('DELETE', `/api/like?postId=${post.id}`);
  t.equal(again.status, 409, 'unlike of a like you never made');
  t.equal(again.json.error, 'conflict');
  t.match(postCounters(db, post.id), { likeCount: 1, likes: 1 });
  t.equal(userCounters(db, author.id).likesReceived, 1);
  t.same((await asCarol('GET', `/api/like?postId=${post.id}`)).json, { likeCount: 1, likedByUser: true });

  // The feed agrees with the per-post call.
  const feed = await asBob('GET', '/api/discover-posts');
  t.match(feed.json[0], { postid: post.id, likeCount: 1, likedByUser: false });
});

t.test('like input is checked', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const bob = await createUser('bob');
  const asBob = client(app, bob.token);
  const pic = insertPost(app.database.sqlite, { userId: bob.id, isProfilePicture: true });
  for (const postId of ['abc', true, null, 0, -1, 1.5, '', {}]) {
    const res = await asBob('POST', '/api/like', { postId });
    t.equal(res.status, 400, `POST postId ${JSON.stringify(postId)}`);
    t.equal(res.json.error, 'invalid_request');
  }
  t.equal((await asBob('POST', '/api/like', {})).status, 400, 'postId missing');
  t.equal((await asBob('POST', '/api/like', { postId: 1, extra: 1 })).status, 400, 'unknown field');
  for (const q of ['', '?postId=', '?postId=abc', '?postId=0', '?postId=1.5']) {
    t.equal((await asBob('GET', `/api/like${q}`)).status, 400, `GET ${q}`);
    t.equal((await asBob('DELETE', `/api/like${q}`)).status, 400, `DELETE ${q}`);
  }
  for (const [method, url, body] of [
    ['GET', '/api/like?postId=999999', undefined],
    ['POST', '/api/like', { postId: 999999 }],
    ['DELETE', '/api/like?postId=999999', undefined],
    ['POST', '/api/like', { postId: pic.id }],
  ] as const) {
    const res = await asBob(method, url, body);
    t.equal(res.status, 404, `${method} ${url} ${JSON.stringify(body ?? '')}: unknown post (profile pictures are not posts)`);
    t.equal(res.json.error, 'not_found');
  }
});

t.test('like routes need a valid token', async (t) => {
  const { app } = await buildTestApp(t);
  for (const [method, url] of [
    ['GET', '/api/like?postId=1'],
    ['POST', '/api/like'],
    ['DELETE', '/api/like?postId=1'],
  ] as const) {
    t.equal((await app.inject({ method, url, payload: method === 'POST' ? { postId: 1 } : undefined })).statusCode, 401, `${method} ${url}`);
    const bad = await app.inject({ method, url, headers: { authorization: 'Bearer x.y.z' } });
    t.equal(bad.statusCode, 401, `${method} ${url} with a bad token`);
  }
});

t.test('likes, comments and follows sent at once: each answered on its own, counters exact', async (t) => {
  // Requests in flight together are committed together (kernel/db/write-batch.ts); each still gets its own answer.
  const { app, createUser } = await buildTestApp(t);
  const author = await createUser('author');
  const db = app.database.sqlite;
  const posts = [insertPost(db, { userId: author.id }), insertPost(db, { userId: author.id })];
  const fans = await Promise.all(['f1', 'f2', 'f3', 'f4', 'f5'].map((name) => createUser(name)));
  const asFans = fans.map((f) => client(app, f.token));

  const answers = await Promise.all([
    ...asFans.map((as) => as('POST', '/api/like', { postId: posts[0]!.id })),
    asFans[0]!('POST', '/api/like', { postId: posts[0]!.id }), // the same like twice at once
    asFans[0]!('POST', '/api/like', { postId: 999_999 }), // no such post
    ...asFans.map((as, i) => as('POST', '/api/comment', { postId: posts[1]!.id, comment: `cheers ${i}` })),
    ...asFans.map((as) => as('POST', '/api/account/author/follow')),
  ]);
  const statuses = answers.map((a) => a.status);
  t.same(statuses.slice(0, 5), [201, 201, 201, 201, 201], 'five likes');
  t.same(statuses.slice(5, 7), [409, 404], 'the repeated like and the missing post fail alone');
  t.same(answers[6]!.json, { error: 'not_found', message: 'This post does not exist.' });
  t.same(statuses.slice(7, 12), [201, 201, 201, 201, 201], 'five comments');
  t.same(statuses.slice(12), [200, 200, 200, 200, 200], 'five follows');
  t.same(
    answers.slice(0, 5).map((a) => a.json.likeCount).sort(),
    [1, 2, 3, 4, 5],
    'each like answered with the count right after it',
  );
  t.same(
    answers.slice(12).map((a) => a.json.followerCount).sort(),
    [1, 2, 3, 4, 5],
  );
  t.match(postCounters(db, posts[0]!.id), { likeCount: 5, likes: 5 });
  t.match(postCounters(db, posts[1]!.id), { commentCount: 5, comments: 5 });
  t.match(userCounters(db, author.id), { likesReceived: 5, commentsReceived: 5, followerCount: 5 });
  const listed = await asFans[1]!('GET', `/api/comment?postId=${posts[1]!.id}`);
  t.same(listed.json.map((c: { content: string }) => c.content).sort(), ['cheers 0', 'cheers 1', 'cheers 2', 'cheers 3', 'cheers 4']);
});
