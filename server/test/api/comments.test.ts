import t from 'tap';
import { buildTestApp } from '../helpers.js';
import { client, insertPost, postCounters, userCounters } from './factories.js';

t.test('comment: add, list oldest first, delete; counters follow', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const author = await createUser('author');
  const bob = await createUser('bob');
  const carol = await createUser('carol');
  const db = app.database.sqlite;
  const post = insertPost(db, { userId: author.id });
  const asBob = client(app, bob.token);
  const asCarol = client(app, carol.token);

  const created = await asBob('POST', '/api/comment', { postId: post.id, comment: '  Cheers!\n\tGood one  ' });
  t.equal(created.status, 201);
  t.match(created.json, { username: 'bob', content: 'Cheers!\n\tGood one', userid: bob.id, isOwner: true });
  t.type(created.json.comment_id, 'number');
  t.ok(!Number.isNaN(Date.parse(created.json.created_at)));
  const second = await asCarol('POST', '/api/comment', { postId: String(post.id), comment: 'second' });
  t.equal(second.status, 201, 'postId as a numeric string');
  t.match(postCounters(db, post.id), { commentCount: 2, comments: 2 });
  t.equal(userCounters(db, author.id).commentsReceived, 2);

  const list = await asCarol('GET', `/api/comment?postId=${post.id}`);
  t.equal(list.status, 200);
  t.same(
    list.json.map((c: { content: string; isOwner: boolean }) => [c.content, c.isOwner]),
    [
      ['Cheers!\n\tGood one', false],
      ['second', true],
    ],
  );
  const page = await asCarol('GET', `/api/comment?postId=${post.id}&limit=1&cursor=${list.json[0].cursor}`);
  t.same(page.json.map((c: { content: string }) => c.content), ['second'], 'comment paging by cursor');

  const forbidden = await asCarol('DELETE', `/api/comment?commentId=${created.json.comment_id}`);
  t.equal(forbidden.status, 403, 'only the commenter may delete');
  t.equal(forbidden.json.error, 'forbidden');
  const byAuthor = await client(app, author.token)('DELETE', `/api/comment?commentId=${created.json.comment_id}`);
  t.equal(byAuthor.status, 403, 'not even the post author');
  t.match(postCounters(db, post.id), { commentCount: 2, comments: 2 }, 'refused deletes change nothing');

  const deleted = await asBob('DELETE', `/api/comment?commentId=${created.json.comment_id}`);
  t.equal(deleted.status, 200);
  t.same(deleted.json, { deleted: true });
  t.match(postCounters(db, post.id), { commentCount: 1, comments: 1 });
  t.equal(userCounters(db, author.id).commentsReceived, 1);
  t.equal((await asBob('DELETE', `/api/comment?commentId=${created.json.comment_id}`)).status, 404, 'already gone');
  const feed = await asBob('GET', '/api/discover-posts');
  t.match(feed.json[0], { commentCount: 1, comments: [{ content: 'second' }] });
});

t.test('comment text rules', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const bob = await createUser('bob');
  const asBob = client(app, bob.token);
  const post = insertPost(app.database.sqlite, { userId: bob.id });
  for (const comment of ['', '   ', '\n\t ', '\u0000\u0007', 'x'.repeat(501), null, ['a', 'b']]) {
    const res = await asBob('POST', '/api/comment', { postId: post.id, comment });
    t.equal(res.status, 400, `refused: ${JSON.stringify(comment)}`.slice(0, 60));
    t.equal(res.json.error, 'invalid_request');
  }
  const max = await asBob('POST', '/api/comment', { postId: post.id, comment: ` ${'é'.repeat(500)} ` });
  t.equal(max.status, 201, '500 characters after trimming');
  const cleaned = await asBob('POST', '/api/comment', { postId: post.id, comment: 'a\u0000b\u001bc\r\nd' });
  t.equal(cleaned.json.content, 'abc\nd', 'control characters removed, newlines kept');
  t.equal((await asBob('POST', '/api/comment', { postId: post.id })).status, 400, 'comment missing');
  t.equal((await asBob('POST', '/api/comment', { comment: 'x' })).status, 400, 'postId missing');
  t.equal((await asBob('POST', '/api/comment', { postId: 'abc', comment: 'x' })).status, 400);
  t.equal((await asBob('POST', '/api/comment', { postId: post.id, comment: 'x', extra: 1 })).status, 400, 'unknown field');
  t.equal((await asBob('POST', '/api/comment', { postId: 999999, comment: 'x' })).status, 404);
  t.equal((await asBob('GET', '/api/comment?postId=999999')).status, 404);
  for (const q of ['', '?postId=x', '?postId=1&limit=0', '?postId=1&limit=201', '?postId=1&cursor=nope']) {
    t.equal((await asBob('GET', `/api/comment${q}`)).status, 400, `GET /api/comment${q}`);
  }
  for (const q of ['', '?commentId=', '?commentId=x', '?commentId=-3']) {
    t.equal((await asBob('DELETE', `/api/comment${q}`)).status, 400, `DELETE /api/comment${q}`);
  }
});

t.test('comment routes need a valid token', async (t) => {
  const { app } = await buildTestApp(t);
  for (const [method, url] of [
    ['GET', '/api/comment?postId=1'],
    ['POST', '/api/comment'],
    ['DELETE', '/api/comment?commentId=1'],
  ] as const) {
    const none = await app.inject({ method, url, payload: method === 'POST' ? { postId: 1, comment: 'x' } : undefined });
    t.equal(none.statusCode, 401, `${method} ${url}`);
    t.equal((await app.inject({ method, url, headers: { authorization: 'Bearer x.y.z' } })).statusCode, 401);
  }
});
