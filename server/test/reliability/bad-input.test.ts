import t from 'tap';
import type { InjectOptions } from 'fastify';
import { insertPost } from '../api/factories.js';
import { RESOURCE_CSP } from '../../src/kernel/security.js';
import { bearer, buildTestApp } from '../helpers.js';
import { makeJpeg, upload } from '../media/upload-helpers.js';
import { clientError, snapshot } from './reliability-helpers.js';

/** Strings that have broken other servers: SQL, traversal, control characters, odd Unicode. */
const NASTY = [
  "' OR '1'='1",
  '1; DROP TABLE posts; --',
  '../../../../etc/passwd',
  '..%2F..%2Fkeys%2Fsigning-key.json',
  '/etc/passwd',
  'uploads/1/../../keys/signing-key.json',
  '\u0000',
  '\u0000\u0001\u001b[31m',
  '\ud800',
  '🍺'.repeat(50),
  '<script>alert(1)</script>',
  '%s%n%x',
  '1e999',
  '-1',
  '0',
  '1.5',
  '99999999999999999999999',
  ' ',
];

/** encodeURIComponent, with a lone surrogate sent as its (invalid) UTF-8 bytes. */
const enc = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80';
  }
};

// B1 (body coercion), B2 (control-character captions) and B3 (bad percent-encoding), the bugs
// docs/reliability.md describes, are fixed: their cases run with the rest.
type Case = { name: string; status?: number | number[] } & InjectOptions;

t.test('bad input on every route: a 4xx JSON error that says what is wrong, and nothing changes', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const bobPost = insertPost(app.database.sqlite, { userId: bob.id, caption: 'bob' });
  const alicePost = insertPost(app.database.sqlite, { userId: alice.id, caption: 'alice' });
  await app.inject({ method: 'POST', url: '/api/like', headers: bearer(alice.token), payload: { postId: bobPost.id } });
  const bobComment = await app.inject({
    method: 'POST',
    url: '/api/comment',
    headers: bearer(bob.token),
    payload: { postId: alicePost.id, comment: 'nice' },
  });
  t.equal(bobComment.statusCode, 201);
  const bobCommentId = (bobComment.json() as { comment_id: number }).comment_id;
  const bobUpload = await upload(app, bob.token, await makeJpeg(64, 48));
  const aliceUpload = await upload(app, alice.token, await makeJpeg(64, 48));

  const json = (payload: string) => ({ payload, headers: { 'content-type': 'application/json' } });
  const huge = 'x'.repeat(1024 * 1024);
  const cases: Case[] = [];
  const add = (c: Case) => cases.push(c);

  // Malformed bodies, on every JSON route.
  for (const url of ['/api/like', '/api/comment', '/api/presign-upload', '/api/create-post']) {
    add({ name: `${url} malformed JSON`, method: 'POST', url, ...json('{"postId": ') });
    add({ name: `${url} JSON array`, method: 'POST', url, ...json('[]') });
    add({ name: `${url} JSON string`, method: 'POST', url, ...json('"hello"') });
    add({ name: `${url} JSON null`, method: 'POST', url, ...json('null') });
    add({ name: `${url} empty JSON body`, method: 'POST', url, ...json('') });
    add({ name: `${url} empty object`, method: 'POST', url, payload: {} });
    add({ name: `${url} text/plain`, method: 'POST', url, payload: 'postId=1', headers: { 'content-type': 'text/plain' } });
    add({ name: `${url} form body`, method: 'POST', url, payload: 'postId=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    add({ name: `${url} 1 MB body`, method: 'POST', url, payload: { postId: 1, comment: huge, caption: huge, s3Key: huge } });
    add({ name: `${url} __proto__`, method: 'POST', url, ...json('{"__proto__": {"admin": true}, "postId": 1}') });
  }

  // Likes.
  for (const postId of [true, null, [bobPost.id], { id: bobPost.id }, -1, 0, 1.5, 1e300, '', ...NASTY]) {
    add({ name: `like postId=${JSON.stringify(postId)}`, method: 'POST', url: '/api/like', payload: { postId } });
  }
  add({ name: 'like extra field', method: 'POST', url: '/api/like', payload: { postId: alicePost.id, userId: bob.id } });
  add({ name: 'like unknown post', method: 'POST', url: '/api/like', payload: { postId: 999999 }, status: 404 });
  add({ name: 'like twice', method: 'POST', url: '/api/like', payload: { postId: bobPost.id }, status: 409 });
  add({ name: 'unlike never liked', method: 'DELETE', url: `/api/like?postId=${alicePost.id}`, status: 409 });
  add({ name: 'unlike unknown post', method: 'DELETE', url: '/api/like?postId=999999', status: 404 });
  add({ name: 'get like unknown post', method: 'GET', url: '/api/like?postId=999999', status: 404 });
  add({ name: 'get like no postId', method: 'GET', url: '/api/like' });
  add({ name: 'get like two postIds', method: 'GET', url: `/api/like?postId=${bobPost.id}&postId=${alicePost.id}` });

  // Comments.
  for (const comment of ['', '   ', '\u0000\u0001\u0002', '\n\t\n', 'x'.repeat(501), 'x'.repeat(5001), 7, null, ['hi'], { text: 'hi' }]) {
    add({ name: `comment ${JSON.stringify(comment).slice(0, 30)}`, method: 'POST', url: '/api/comment', payload: { postId: bobPost.id, comment } });
  }
  for (const postId of NASTY) {
    add({ name: `comment postId=${JSON.stringify(postId)}`, method: 'POST', url: '/api/comment', payload: { postId, comment: 'hi' } });
    add({ name: `list comments postId=${JSON.stringify(postId)}`, method: 'GET', url: `/api/comment?postId=${enc(postId)}` });
    add({ name: `delete comment commentId=${JSON.stringify(postId)}`, method: 'DELETE', url: `/api/comment?commentId=${enc(postId)}` });
  }
  add({ name: 'comment unknown post', method: 'POST', url: '/api/comment', payload: { postId: 999999, comment: 'hi' }, status: 404 });
  add({ name: 'comment missing text', method: 'POST', url: '/api/comment', payload: { postId: bobPost.id } });
  add({ name: 'comment extra field', method: 'POST', url: '/api/comment', payload: { postId: bobPost.id, comment: 'hi', userid: bob.id } });
  add({ name: 'list comments limit 0', method: 'GET', url: `/api/comment?postId=${bobPost.id}&limit=0` });
  add({ name: 'list comments limit 1e9', method: 'GET', url: `/api/comment?postId=${bobPost.id}&limit=1000000000` });
  add({ name: 'list comments bad cursor', method: 'GET', url: `/api/comment?postId=${bobPost.id}&cursor=${enc("1' OR 1=1")}` });
  add({ name: 'list comments unknown post', method: 'GET', url: '/api/comment?postId=999999', status: 404 });
  add({ name: "delete someone else's comment", method: 'DELETE', url: `/api/comment?commentId=${bobCommentId}`, status: 403 });
  add({ name: 'delete unknown comment', method: 'DELETE', url: '/api/comment?commentId=999999', status: 404 });

  // Posts and uploads.
  for (const s3Key of [...NASTY, '', 'x'.repeat(201), bobUpload, `${aliceUpload}/../${bobUpload}`, aliceUpload.toUpperCase(), 'uploads/1', 'media/x/display.webp', 'keys/signing-key.json']) {
    add({ name: `create-post s3Key=${JSON.stringify(s3Key).slice(0, 40)}`, method: 'POST', url: '/api/create-post', payload: { s3Key, caption: 'hi' } });
  }
  for (const caption of ['', '   ', '\u0000', 'x'.repeat(2201), 42, null, ['a']]) {
    add({ name: `create-post caption ${JSON.stringify(caption).slice(0, 30)}`, method: 'POST', url: '/api/create-post', payload: { s3Key: aliceUpload, caption } });
  }
  add({ name: 'create-post isAnonymous as string', method: 'POST', url: '/api/create-post', payload: { s3Key: aliceUpload, caption: 'hi', isAnonymous: 'yes' } });
  add({ name: 'create-post extra field', method: 'POST', url: '/api/create-post', payload: { s3Key: aliceUpload, caption: 'hi', userId: bob.id } });
  add({ name: 'create-post missing key', method: 'POST', url: '/api/create-post', payload: { caption: 'hi' } });
  add({ name: 'create-post with bob upload', method: 'POST', url: '/api/create-post', payload: { s3Key: bobUpload, caption: 'mine now' }, status: 403 });
  for (const fileType of ['text/html', 'application/octet-stream', '', 'image/', 'image/../../x', "image/jpeg' OR 1=1", 'x'.repeat(300), 5]) {
    add({ name: `presign fileType=${JSON.stringify(fileType).slice(0, 30)}`, method: 'POST', url: '/api/presign-upload', payload: { fileName: 'a.jpg', fileType } });
  }
  for (const fileName of ['', 'x'.repeat(256), 12, null]) {
    add({ name: `presign fileName=${JSON.stringify(fileName).slice(0, 30)}`, method: 'POST', url: '/api/presign-upload', payload: { fileName, fileType: 'image/jpeg' } });
  }
  add({ name: 'presign isProfilePicture string', method: 'POST', url: '/api/presign-upload', payload: { fileName: 'a.jpg', fileType: 'image/jpeg', isProfilePicture: 'true' } });
  add({ name: 'presign extra field', method: 'POST', url: '/api/presign-upload', payload: { fileName: 'a.jpg', fileType: 'image/jpeg', userId: bob.id } });
  for (const postId of NASTY) {
    add({ name: `delete post postId=${JSON.stringify(postId)}`, method: 'DELETE', url: `/api/post?postId=${enc(postId)}` });
  }
  add({ name: 'delete post without id', method: 'DELETE', url: '/api/post' });
  add({ name: "delete bob's post", method: 'DELETE', url: `/api/post?postId=${bobPost.id}`, status: 403 });
  add({ name: 'delete unknown post', method: 'DELETE', url: '/api/post?postId=999999', status: 404 });

  // Profiles, follows, search, feeds.
  for (const username of [...NASTY.filter((n) => n.trim() && !n.includes('\u0000') && !n.includes('/')), 'nobody-here']) {
    add({ name: `view-user-posts ${JSON.stringify(username).slice(0, 30)}`, method: 'GET', url: `/api/view-user-posts?username=${enc(username)}`, status: 404 });
    add({ name: `follow ${JSON.stringify(username).slice(0, 30)}`, method: 'POST', url: `/api/account/${enc(username)}/follow`, status: [400, 404] });
    add({ name: `followers ${JSON.stringify(username).slice(0, 30)}`, method: 'GET', url: `/api/account/${enc(username)}/followers`, status: [400, 404] });
  }
  add({ name: 'view-user-posts empty', method: 'GET', url: '/api/view-user-posts?username=' });
  add({ name: 'view-user-posts missing', method: 'GET', url: '/api/view-user-posts' });
  add({ name: 'view-user-posts 10 000 chars', method: 'GET', url: `/api/view-user-posts?username=${'a'.repeat(10_000)}` });
  add({ name: 'follow yourself', method: 'POST', url: '/api/account/alice/follow', status: 400 });
  add({ name: 'follow yourself other case', method: 'POST', url: '/api/account/ALICE/follow', status: 400 });
  add({ name: 'unfollow not followed', method: 'DELETE', url: '/api/account/bob/follow', status: 409 });
  add({ name: 'follow 300-char name', method: 'POST', url: `/api/account/${'a'.repeat(300)}/follow` });
  add({ name: 'follow with a body', method: 'POST', url: '/api/account/bob/follow', payload: 'x'.repeat(100_000), headers: { 'content-type': 'application/json' } });
  add({ name: 'search 10 000 chars', method: 'GET', url: `/api/search-profiles?username=${'a'.repeat(10_000)}` });
  add({ name: 'search empty', method: 'GET', url: '/api/search-profiles?username=' });
  add({ name: 'search blank', method: 'GET', url: '/api/search-profiles?username=%20%20' });
  add({ name: 'search missing', method: 'GET', url: '/api/search-profiles' });
  for (const url of ['/api/discover-posts', '/api/followFeed', '/api/user-posts']) {
    for (const q of ['limit=0', 'limit=51', 'limit=-1', 'limit=abc', 'limit=1e3', `cursor=${enc("1' OR 1=1")}`, 'cursor=../../x', 'cursor=99999999999999999999.1']) {
      add({ name: `${url}?${q}`, method: 'GET', url: `${url}?${q}` });
    }
  }
  add({ name: 'unknown route', method: 'GET', url: '/api/../../etc/passwd', status: 404 });
  add({ name: 'unknown api route', method: 'POST', url: '/api/admin', payload: {}, status: 404 });
  add({ name: 'media traversal', method: 'GET', url: '/media/..%2F..%2Fkeys%2Fsigning-key.json', status: 404 });
  add({ name: 'media raw upload', method: 'GET', url: `/media/${aliceUpload}`, status: 404 });
  add({ name: 'raw upload GET', method: 'GET', url: `/${aliceUpload}`, status: 404 });

  const run = async (list: Case[]) => {
    const failures: string[] = [];
    for (const c of list) {
      const { name, status, ...request } = c;
      const res = await app.inject({ ...request, headers: { ...bearer(alice.token), ...(request.headers ?? {}) } });
      const check = clientError(res);
      const wanted = status === undefined ? null : Array.isArray(status) ? status : [status];
      if (!check.ok || (wanted && !wanted.includes(res.statusCode))) {
        failures.push(`${name}: wanted ${wanted?.join('/') ?? '4xx'}, got ${check.why}`);
      }
    }
    return failures;
  };

  const before = snapshot(app);
  t.same(await run(cases), [], `${cases.length} bad requests, each answered with a 4xx JSON error`);
  t.same(snapshot(app), before, 'nothing changed: rows, counters, stored files');
});

t.test('control characters, emoji and markup are kept as plain text, never interpreted', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const post = insertPost(app.database.sqlite, { userId: alice.id, caption: '<script>alert(1)</script>' });
  const res = await app.inject({
    method: 'POST',
    url: '/api/comment',
    headers: bearer(alice.token),
    payload: { postId: post.id, comment: '🍺 <img src=x onerror=alert(1)>\u0000\u0007 done' },
  });
  t.equal(res.statusCode, 201);
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  t.equal(res.json().content, '🍺 <img src=x onerror=alert(1)> done', 'control characters removed, the rest verbatim');

  const feed = await app.inject({ method: 'GET', url: '/api/discover-posts', headers: bearer(alice.token) });
  t.match(feed.headers['content-type'], /^application\/json/);
  t.equal(feed.json()[0].caption, '<script>alert(1)</script>', 'a caption with markup comes back verbatim as a JSON string');
  t.equal(feed.json()[0].comments[0].content, '🍺 <img src=x onerror=alert(1)> done');
  t.equal(feed.headers['x-content-type-options'], 'nosniff');
  t.equal(feed.headers['content-security-policy'], RESOURCE_CSP, 'and, opened as a page, it could load and run nothing');
});
