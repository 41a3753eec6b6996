import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { isOperator } from '../../src/kernel/auth/operators.js';
import { loadConfig } from '../../src/kernel/config.js';
import { client, insertPost, postCounters } from '../api/factories.js';
import { buildTestApp } from '../helpers.js';
import { createPost, makeJpeg, upload } from '../media/upload-helpers.js';

const OPERATOR_ROUTES: Array<['GET' | 'POST' | 'DELETE', string, unknown?]> = [
  ['GET', '/api/admin/overview'],
  ['POST', '/api/admin/reports/post/1/dismiss', {}],
  ['DELETE', '/api/admin/posts/1', { reason: 'spam' }],
  ['DELETE', '/api/admin/comments/1', { reason: 'spam' }],
  ['POST', '/api/admin/users/bob/suspend', { reason: 'spam' }],
  ['DELETE', '/api/admin/users/bob/suspend', {}],
];

t.test('who is an operator is decided by the server from the verified token', async (t) => {
  const { app, createUser, tokenFor } = await buildTestApp(t, { ADMIN_USERNAMES: 'Olga, someone-else' });
  const olga = await createUser('olga');
  const bob = await createUser('bob');
  const asBob = client(app, bob.token);
  const asOlga = client(app, olga.token);
  // A Keycloak-shaped token: the realm role shower-beer-admin in realm_access.roles. With the
  // embedded provider the account's grant decides, not the token (moderation/operators-repository.ts).
  const kim = client(app, await tokenFor({ username: 'kim', operator: true }));

  t.same((await asBob('GET', '/api/me')).json, { username: 'bob', isOperator: false, suspension: null });
  t.match((await asOlga('GET', '/api/me')).json, { isOperator: true }, 'ADMIN_USERNAMES, in any case');
  t.match((await kim('GET', '/api/me')).json, { isOperator: false }, 'a role in the token alone grants nothing with the embedded provider');

  for (const [method, url, body] of OPERATOR_ROUTES) {
    const res = await asBob(method, url, body);
    t.equal(res.status, 403, `${method} ${url}: 403 for a non-operator`);
    t.same(res.json, { error: 'forbidden', message: 'Only operators can do this.' });
  }
  t.equal((await asOlga('GET', '/api/admin/overview')).status, 200);
  t.equal((await kim('GET', '/api/admin/overview')).status, 403);
  // Nothing the client sends makes it an operator.
  t.equal((await asBob('GET', '/api/admin/overview?isOperator=true')).status, 403);
});

t.test('with an external provider only the role counts, never a name', async (t) => {
  const auth = loadConfig({ AUTH_PROVIDER: 'oidc', OIDC_ISSUER: 'http://kc/realms/x', ADMIN_USERNAMES: 'olga', DATA_DIR: '/tmp/x' }).auth;
  t.same(auth.adminUsernames, [], 'ADMIN_USERNAMES is for the embedded provider');
  t.equal(isOperator(auth, { sub: 's', realm_access: { roles: ['shower-beer-admin'] } } as never, () => false), true);
  t.equal(isOperator(auth, { sub: 's', realm_access: { roles: ['offline_access'] } } as never, () => true), false, 'no grant counts');
  t.equal(isOperator(auth, { sub: 's', roles: ['shower-beer-admin'] } as never, () => true), false, 'only where Keycloak puts realm roles');
});

t.test('reports: one open per person per item; the reporter learns nothing of an anonymous author', async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'olga' });
  const olga = await createUser('olga');
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const carol = await createUser('carol');
  const db = app.database.sqlite;
  const secret = insertPost(db, { userId: alice.id, caption: 'guess who', isAnonymous: true, createdAt: 1_000 });
  const open = insertPost(db, { userId: alice.id, caption: 'plain', createdAt: 2_000 });
  const asBob = client(app, bob.token);
  const asCarol = client(app, carol.token);
  const asOlga = client(app, olga.token);
  const comment = (await client(app, alice.token)('POST', '/api/comment', { postId: open.id, comment: 'rude words' })).json;

  const first = await asBob('POST', '/api/reports', { kind: 'post', id: secret.id, reason: 'spam', note: 'bot' });
  t.equal(first.status, 201);
  t.same(first.json, { reported: true, message: 'Thanks, an operator will look at it' }, 'nothing about the author');
  t.notMatch(first.body, /alice/);
  const again = await asBob('POST', '/api/reports', { kind: 'post', id: secret.id, reason: 'other' });
  t.equal(again.status, 409, 'a second open report by the same person');
  t.equal(again.json.error, 'already_reported');
  t.equal((await asCarol('POST', '/api/reports', { kind: 'post', id: secret.id, reason: 'nudity' })).status, 201, 'another person may');
  t.equal((await asCarol('POST', '/api/reports', { kind: 'comment', id: comment.comment_id, reason: 'harassment' })).status, 201);

  for (const [body, status] of [
    [{ kind: 'post', id: 999, reason: 'spam' }, 404],
    [{ kind: 'comment', id: 999, reason: 'spam' }, 404],
    [{ kind: 'post', id: secret.id, reason: 'boring' }, 400],
    [{ kind: 'photo', id: secret.id, reason: 'spam' }, 400],
    [{ kind: 'post', id: secret.id, reason: 'spam', note: 'x'.repeat(501) }, 400],
  ] as const) {
    const res = await asBob('POST', '/api/reports', body);
    t.equal(res.status, status, JSON.stringify(body));
    t.type(res.json.message, 'string');
  }
  t.equal((await client(app, alice.token)('POST', '/api/reports', { kind: 'post', id: open.id, reason: 'spam' })).status, 400, 'not your own');
  t.equal((db.prepare('SELECT count(*) AS n FROM reports').get() as { n: number }).n, 3, 'refused reports stored nothing');

  const discover = (await asCarol('GET', '/api/discover-posts')).json as Array<{ postid: number }>;
  t.ok(discover.some((p) => p.postid === secret.id), 'a reported post stays visible until an operator acts');

  const overview = (await asOlga('GET', '/api/admin/overview')).json;
  t.match(overview.figures, { users: 4, posts: 2, openReports: 2 });
  t.equal(overview.reports.length, 2);
  t.match(overview.reports[0], { kind: 'comment', itemId: comment.comment_id, postId: open.id, text: 'rude words', author: 'alice', reporterCount: 1 }, 'newest first');
  t.match(overview.reports[1], {
    kind: 'post',
    itemId: secret.id,
    isAnonymous: true,
    author: 'alice',
    authorSuspended: false,
    reporterCount: 2,
    reasons: [{ reason: 'nudity', note: '' }, { reason: 'spam', note: 'bot' }],
  }, 'the operator sees who posted anonymously');

  const dismissed = await asOlga('POST', `/api/admin/reports/post/${secret.id}/dismiss`, { reason: 'fine' });
  t.equal(dismissed.status, 200);
  t.equal((await asOlga('POST', `/api/admin/reports/post/${secret.id}/dismiss`, {})).status, 404, 'nothing open any more');
  const after = (await asOlga('GET', '/api/admin/overview')).json;
  t.equal(after.reports.length, 1);
  t.match(after.actions[0], { operator: 'olga', action: 'dismiss', target: `2 reports on post ${secret.id} by alice`, reason: 'fine' });
  t.equal((await asBob('POST', '/api/reports', { kind: 'post', id: secret.id, reason: 'spam' })).status, 201, 'reportable again once dismissed');
});

t.test('removal is real: the post with its images, the comment from every view and count in one request', async (t) => {
  const { app, config, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'olga' });
  const olga = await createUser('olga');
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const asBob = client(app, bob.token);
  const asOlga = client(app, olga.token);
  const asAlice = client(app, alice.token);
  const key = await upload(app, alice.token, await makeJpeg(800, 600));
  const post = (await createPost(app, alice.token, { s3Key: key, caption: 'take me down' })).json() as { postid: number; s3Url: string; thumbnailUrl: string };
  const keep = insertPost(app.database.sqlite, { userId: alice.id, caption: 'keep' });
  const c1 = (await asBob('POST', '/api/comment', { postId: keep.id, comment: 'nasty' })).json;
  await asAlice('POST', '/api/comment', { postId: keep.id, comment: 'nice' });
  await asBob('POST', '/api/reports', { kind: 'post', id: post.postid, reason: 'nudity' });
  await asAlice('POST', '/api/reports', { kind: 'comment', id: c1.comment_id, reason: 'harassment' });

  t.equal((await asOlga('DELETE', `/api/admin/posts/${post.postid}`, { reason: '' })).status, 400, 'the author must be told why');
  const removed = await asOlga('DELETE', `/api/admin/posts/${post.postid}`, { reason: 'Nudity is not allowed here.' });
  t.equal(removed.status, 200);
  t.notOk((await asBob('GET', '/api/discover-posts')).json.some((p: { postid: number }) => p.postid === post.postid), 'gone for the reporter');
  for (const url of [post.s3Url, post.thumbnailUrl]) {
    t.equal((await app.inject({ method: 'GET', url })).statusCode, 404, `${url} no longer served`);
    t.notOk(existsSync(join(config.storage.localDir, url.replace(/^\/media\//, ''))), `${url} deleted from storage`);
  }
  t.equal((await asOlga('DELETE', `/api/admin/posts/${post.postid}`, { reason: 'again' })).status, 404);

  t.equal((await asOlga('DELETE', `/api/admin/comments/${c1.comment_id}`, { reason: 'Be kind.' })).status, 200);
  const comments = (await asBob('GET', `/api/comment?postId=${keep.id}`)).json as Array<{ content: string }>;
  t.same(comments.map((c) => c.content), ['nice'], 'the comment is gone from the list');
  const page = (await asBob('GET', '/api/discover-posts')).json as Array<{ postid: number; commentCount: number; comments: unknown[] }>;
  t.match(page.find((p) => p.postid === keep.id), { commentCount: 1, comments: [{ content: 'nice' }] }, 'and from the feed and its count');
  t.match(postCounters(app.database.sqlite, keep.id), { commentCount: 1, comments: 1 });

  const notices = (await asAlice('GET', '/api/account/notices')).json.notices;
  t.match(notices, [{ action: 'remove_post', excerpt: 'take me down', reason: 'Nudity is not allowed here.' }], 'the author sees why');
  t.same((await asBob('GET', '/api/account/notices')).json.notices.map((n: { action: string }) => n.action), ['remove_comment']);
  const overview = (await asOlga('GET', '/api/admin/overview')).json;
  t.equal(overview.reports.length, 0, 'acting on an item closes its reports');
  t.same(overview.actions.map((a: { action: string }) => a.action), ['remove_comment', 'remove_post']);
  t.match(overview.actions[1], { operator: 'olga', target: `post ${post.postid} by alice` });
});
