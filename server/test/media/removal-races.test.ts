import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { createStandaloneAccountRemoval } from '../../src/person-steps.js';
import type { Storage } from '../../src/kernel/storage/storage.js';
import { client, insertPost, userCounters } from '../api/factories.js';
import { bearer, buildTestApp } from '../helpers.js';
import { createPost, injectUrl, makeJpeg, presign, upload } from './upload-helpers.js';

/**
 * Removing an account while one of its requests is still at work (issue 34): the request was
 * authenticated before the removal, so only the write's own transaction can refuse it.
 * Each race is made certain by holding the request at one point (a storage call, or the
 * write batch) until the removal has answered.
 */

/** A promise and the function that settles it. */
function gate() {
  let open!: () => void;
  const closed = new Promise<void>((resolve) => (open = resolve));
  return { closed, open };
}

/** Resolves once `condition` holds (checked every few ms), or fails after 10 s. */
async function until(condition: () => boolean, what: string) {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > 10_000) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Holds the first storage call of `method` whose key matches, until released; records every key written. */
function holdStorage(storage: Storage, method: 'read' | 'write', match: (key: string) => boolean) {
  const hold = gate();
  const held = { reached: false, released: hold.open };
  const written: string[] = [];
  const realRead = storage.read.bind(storage);
  const realWrite = storage.write.bind(storage);
  const pause = async (key: string) => {
    if (!held.reached && match(key)) {
      held.reached = true;
      await hold.closed;
    }
  };
  storage.read = async (key) => {
    if (method === 'read') await pause(key);
    return realRead(key);
  };
  storage.write = async (key, body, type) => {
    if (method === 'write') await pause(key);
    await realWrite(key, body, type);
    written.push(key);
  };
  return { held, written };
}

/** Every file stored under media/ (processed images), for checking that nothing of a removed account stays. */
async function mediaFiles(storage: Storage): Promise<string[]> {
  const keys: string[] = [];
  for await (const item of storage.list('media/')) keys.push(item.key);
  return keys;
}

type Remover = 'DELETE /api/account' | 'npm run user:remove';

/** Removes the account the way its owner does, or the way the operator's script does (its own service, same database). */
async function removeAccount(app: FastifyInstance, how: Remover, user: { id: number; username: string; token: string }) {
  if (how === 'DELETE /api/account') {
    const res = await app.inject({ method: 'DELETE', url: '/api/account', headers: bearer(user.token), payload: { confirmUsername: user.username } });
    return res.statusCode;
  }
  const service = createStandaloneAccountRemoval({ sqlite: app.database.sqlite, storage: app.storage, log: { warn: () => {} } });
  return (await service.remove(user.id)) ? 200 : 404;
}

const posts = (app: FastifyInstance, userId: number) =>
  (app.database.sqlite.prepare('SELECT count(*) AS n FROM posts WHERE user_id = ?').get(userId) as { n: number }).n;

for (const how of ['DELETE /api/account', 'npm run user:remove'] as const) {
  t.test(`create-post whose images are stored while the account is removed (${how}): no 500, no row, no file, no photo URL`, async (t) => {
    const { app, createUser } = await buildTestApp(t);
    const alice = await createUser('alice');
    const bob = await createUser('bob');
    const key = await upload(app, alice.token, await makeJpeg(1200, 900));
    // Held at the first processed image's write: the image is processed, nothing of the post exists yet.
    const { held, written } = holdStorage(app.storage, 'write', (k) => k.startsWith('media/'));
    const pending = createPost(app, alice.token, { s3Key: key, caption: 'racing the removal' });
    await until(() => held.reached, 'the image is processed');

    t.equal(await removeAccount(app, how, alice), 200, 'the removal answers while the post is being made');
    held.released();
    const res = await pending;

    t.not(res.statusCode, 500);
    t.ok([401, 404].includes(res.statusCode), `401 or 404 (got ${res.statusCode})`);
    t.match(res.json(), { error: String, message: String });
    t.equal(posts(app, alice.id), 0, 'no post row');
    t.ok(written.length > 0, 'the images were written before the insert was refused');
    for (const k of written) {
      t.equal(await app.storage.stat(k), null, `${k} is not kept`);
      t.equal((await app.inject({ url: `/${k}` })).statusCode, 404, `/${k} answers 404`);
    }
    t.same(await mediaFiles(app.storage), [], 'no processed image stays');
    t.equal(await app.storage.stat(key), null, 'nor the raw upload');
    const discover = await app.inject({ url: '/api/discover-posts', headers: bearer(bob.token) });
    t.same(discover.json(), [], 'nothing of theirs in anyone’s Discover');
  });

  t.test(`create-post waiting to read its upload while the account is removed (${how}): 401 or 404, never 500`, async (t) => {
    const { app, createUser } = await buildTestApp(t);
    const alice = await createUser('alice');
    const key = await upload(app, alice.token, await makeJpeg(800, 600));
    // Held before the raw upload is read, as when the image limiter is busy: the removal deletes it meanwhile.
    const { held, written } = holdStorage(app.storage, 'read', (k) => k === key);
    const pending = createPost(app, alice.token, { s3Key: key, caption: 'too late' });
    await until(() => held.reached, 'the raw upload is about to be read');

    t.equal(await removeAccount(app, how, alice), 200);
    held.released();
    const res = await pending;

    t.ok([401, 404].includes(res.statusCode), `401 or 404 (got ${res.statusCode})`);
    t.equal(posts(app, alice.id), 0, 'no post row');
    t.same(written, [], 'no image was stored');
    t.same(await mediaFiles(app.storage), []);
  });
}

t.test('an upload PUT that lands after the removal leaves no file and answers 404', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const { uploadUrl, s3Key } = (await presign(app, alice.token, { fileName: 'p.jpg', fileType: 'image/jpeg' })).json() as { uploadUrl: string; s3Key: string };
  const { held } = holdStorage(app.storage, 'write', (k) => k === s3Key);
  const put = app.inject({ method: 'PUT', url: injectUrl(uploadUrl), headers: { 'content-type': 'image/jpeg' }, payload: await makeJpeg(320, 240) });
  await until(() => held.reached, 'the bytes are being stored');
  t.equal(await removeAccount(app, 'DELETE /api/account', alice), 200);
  held.released();
  const res = await put;
  t.equal(res.statusCode, 404);
  t.equal(await app.storage.stat(s3Key), null, 'the raw file is removed');
  t.equal((app.database.sqlite.prepare('SELECT count(*) AS n FROM uploads').get() as { n: number }).n, 0, 'no upload row');
});

/** Holds the next write the batch would run (likes, comments, follows…) until released. */
function holdNextBatchedWrite(app: FastifyInstance) {
  const hold = gate();
  const held = { reached: false, released: hold.open };
  const real = app.writes.run.bind(app.writes);
  app.writes.run = async <T>(write: () => T): Promise<T> => {
    if (!held.reached) {
      held.reached = true;
      await hold.closed;
    }
    return real(write);
  };
  return held;
}

t.test('a follow sent while the account is removed is refused and leaves no follow nor count', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const held = holdNextBatchedWrite(app);
  const follow = app.inject({ method: 'POST', url: '/api/account/bob/follow', headers: bearer(alice.token) });
  await until(() => held.reached, 'the follow is authenticated');
  t.equal(await removeAccount(app, 'DELETE /api/account', alice), 200);
  held.released();
  const res = await follow;
  t.ok([401, 404].includes(res.statusCode), `401 or 404 (got ${res.statusCode})`);
  const db = app.database.sqlite;
  t.equal((db.prepare('SELECT count(*) AS n FROM follows').get() as { n: number }).n, 0, 'no follow row');
  t.equal(userCounters(db, bob.id).followerCount, 0, 'bob’s follower count is not moved');
  const profile = await app.inject({ url: '/api/view-user-posts?username=bob', headers: bearer((await createUser('cat')).token) });
  t.equal(profile.json().followerCount, 0);
  t.same((await app.inject({ url: '/api/account/bob/followers', headers: bearer(bob.token) })).json(), []);
  t.equal((await app.inject({ url: '/api/notifications/unread', headers: bearer(bob.token) })).json().unread, 0, 'no notification');
});

t.test('a like sent while the account is removed is refused and leaves no like nor count', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const db = app.database.sqlite;
  const post = insertPost(db, { userId: bob.id, caption: 'like me' });
  const held = holdNextBatchedWrite(app);
  const like = client(app, alice.token)('POST', '/api/like', { postId: post.id });
  await until(() => held.reached, 'the like is authenticated');
  t.equal(await removeAccount(app, 'npm run user:remove', alice), 200);
  held.released();
  const res = await like;
  t.ok([401, 404].includes(res.status), `401 or 404 (got ${res.status})`);
  t.equal((db.prepare('SELECT count(*) AS n FROM likes').get() as { n: number }).n, 0, 'no like row');
  t.equal((db.prepare('SELECT like_count AS n FROM posts WHERE id = ?').get(post.id) as { n: number }).n, 0, 'the post’s count is not moved');
  t.equal(userCounters(db, bob.id).likesReceived, 0);
  t.equal((await app.inject({ url: '/api/notifications/unread', headers: bearer(bob.token) })).json().unread, 0, 'no notification');
});

t.test('a comment, a report and a block sent while the account is suspended are refused', async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'olga' });
  const olga = await createUser('olga');
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const db = app.database.sqlite;
  const post = insertPost(db, { userId: bob.id, caption: 'comment me' });
  const asAlice = client(app, alice.token);
  for (const [method, url, body] of [
    ['POST', '/api/comment', { postId: post.id, comment: 'late' }],
    ['POST', '/api/reports', { kind: 'post', id: post.id, reason: 'spam' }],
    ['POST', '/api/account/bob/block', undefined],
  ] as const) {
    const held = holdNextBatchedWrite(app);
    const pending = asAlice(method, url, body);
    await until(() => held.reached, `${url} is authenticated`);
    const suspended = await client(app, olga.token)('POST', '/api/admin/users/alice/suspend', { reason: 'spam' });
    t.equal(suspended.status, 200);
    held.released();
    const res = await pending;
    t.equal(res.status, 403, `${url}: 403`);
    t.equal(res.json.error, 'account_suspended');
    t.equal((await client(app, olga.token)('DELETE', '/api/admin/users/alice/suspend', { reason: 'lifted' })).status, 200, 'lifted again');
  }
  for (const table of ['comments', 'reports', 'blocks']) {
    t.equal((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n, 0, `no row in ${table}`);
  }
});
