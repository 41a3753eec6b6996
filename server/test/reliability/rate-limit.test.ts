import t from 'tap';
import { insertPost } from '../api/factories.js';
import { bearer, buildTestApp } from '../helpers.js';

t.test('writes share one per-user budget per minute, answered with 429 and Retry-After', async (t) => {
  const { app, createUser } = await buildTestApp(t, { RATE_LIMIT_WRITES_PER_MINUTE: '3' });
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const carol = await createUser('carol');
  const post = insertPost(app.database.sqlite, { userId: bob.id, caption: 'hi' });

  // Three different write routes: the budget is shared across them.
  const first = await app.inject({ method: 'POST', url: '/api/like', headers: bearer(alice.token), payload: { postId: post.id } });
  t.equal(first.statusCode, 201);
  const second = await app.inject({
    method: 'POST',
    url: '/api/comment',
    headers: bearer(alice.token),
    payload: { postId: post.id, comment: 'cheers' },
  });
  t.equal(second.statusCode, 201);
  const third = await app.inject({ method: 'POST', url: '/api/account/bob/follow', headers: bearer(alice.token) });
  t.equal(third.statusCode, 200);

  const fourth = await app.inject({ method: 'DELETE', url: `/api/like?postId=${post.id}`, headers: bearer(alice.token) });
  t.equal(fourth.statusCode, 429, 'the fourth write in a minute is refused');
  t.equal(fourth.json().error, 'rate_limited');
  t.match(fourth.json().message, /try again in \d+ s/);
  const retry = Number(fourth.headers['retry-after']);
  t.ok(retry >= 1 && retry <= 60, `Retry-After is a number of seconds (${fourth.headers['retry-after']})`);
  const likes = app.database.sqlite.prepare('SELECT count(*) AS n FROM likes').get() as { n: number };
  t.equal(likes.n, 1, 'the refused unlike changed nothing');

  const presign = await app.inject({
    method: 'POST',
    url: '/api/presign-upload',
    headers: bearer(alice.token),
    payload: { fileName: 'a.jpg', fileType: 'image/jpeg' },
  });
  t.equal(presign.statusCode, 429, 'media writes count against the same budget');

  // Reads are not limited, and other users (same address) have their own budget.
  const read = await app.inject({ method: 'GET', url: '/api/discover-posts', headers: bearer(alice.token) });
  t.equal(read.statusCode, 200);
  for (let i = 0; i < 3; i++) {
    const res = await app.inject({
      method: 'POST',
      url: '/api/comment',
      headers: bearer(carol.token),
      payload: { postId: post.id, comment: `c${i}` },
    });
    t.equal(res.statusCode, 201, `carol's write ${i + 1} is not limited by alice's`);
  }
});

t.test('requests without a valid token are 401, never counted against a user', async (t) => {
  const { app, createUser } = await buildTestApp(t, { RATE_LIMIT_WRITES_PER_MINUTE: '2' });
  const alice = await createUser('alice');
  for (let i = 0; i < 5; i++) {
    const res = await app.inject({ method: 'POST', url: '/api/like', payload: { postId: 1 } });
    t.equal(res.statusCode, 401);
  }
  const res = await app.inject({ method: 'POST', url: '/api/sync-users', headers: bearer(alice.token) });
  t.equal(res.statusCode, 200);
});

t.test('upload PUTs are limited per address', async (t) => {
  const { app, createUser } = await buildTestApp(t, { RATE_LIMIT_WRITES_PER_MINUTE: '2' });
  const alice = await createUser('alice');
  const url = `/uploads/${alice.id}/00000000-0000-4000-8000-000000000000?ct=image%2Fjpeg&exp=9999999999&sig=${'A'.repeat(43)}`;
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await app.inject({ method: 'PUT', url, headers: { 'content-type': 'image/jpeg' }, payload: Buffer.from('x') });
    statuses.push(res.statusCode);
  }
  t.same(statuses, [403, 403, 429], 'tampered links are refused, then the address is limited');
  const other = await app.inject({
    method: 'PUT',
    url,
    remoteAddress: '10.0.0.9',
    headers: { 'content-type': 'image/jpeg' },
    payload: Buffer.from('x'),
  });
  t.equal(other.statusCode, 403, 'another address has its own budget');
});
