import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { insertComment, insertLike } from '../api/factories.js';
import { bearer, buildTestApp, type TestApp } from '../helpers.js';
import { counters, countRows, createPost, makeJpeg, upload } from './upload-helpers.js';

const del = (test: TestApp, token: string, postId: string | number) =>
  test.app.inject({ method: 'DELETE', url: `/api/post?postId=${postId}`, headers: bearer(token) });

/** Likes and comments as the social API records them: rows plus counters, in one go. */
function react(test: TestApp, postId: number, likers: number[], commenters: number[]) {
  const db = test.app.database.sqlite;
  db.transaction(() => {
    for (const id of likers) insertLike(db, postId, id);
    for (const id of commenters) insertComment(db, postId, id, 'Cheers');
  })();
}

t.test('only the author deletes a post; counters, likes, comments and files go with it', async (t) => {
  const test = await buildTestApp(t);
  const { app, createUser, config } = test;
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const carol = await createUser('carol');

  const keep = (await createPost(app, alice.token, { s3Key: await upload(app, alice.token, await makeJpeg(400, 300)), caption: 'keep' })).json();
  const gone = (await createPost(app, alice.token, { s3Key: await upload(app, alice.token, await makeJpeg(400, 300)), caption: 'gone' })).json();
  react(test, keep.postid, [bob.id], [carol.id]);
  react(test, gone.postid, [bob.id, carol.id], [bob.id, bob.id, carol.id]);
  t.match(counters(app, alice.id), { postCount: 2, publicPostCount: 2, likesReceived: 3, commentsReceived: 4 });

  const byBob = await del(test, bob.token, gone.postid);
  t.equal(byBob.statusCode, 403);
  t.match(byBob.json(), { error: 'forbidden' });
  t.equal(countRows(app, 'posts'), 2, 'nothing deleted by someone else');

  t.equal((await del(test, alice.token, 'abc')).statusCode, 400);
  t.equal((await del(test, alice.token, '-1')).statusCode, 400);
  t.equal((await app.inject({ method: 'DELETE', url: '/api/post', headers: bearer(alice.token) })).statusCode, 400, 'no postId');
  t.equal((await del(test, alice.token, 999999)).statusCode, 404);
  t.equal((await app.inject({ method: 'DELETE', url: `/api/post?postId=${gone.postid}` })).statusCode, 401);

  const res = await del(test, alice.token, gone.postid);
  t.equal(res.statusCode, 200);
  t.same(res.json(), { deleted: true });
  t.match(counters(app, alice.id), { postCount: 1, publicPostCount: 1, likesReceived: 1, commentsReceived: 1 });
  t.equal(countRows(app, 'likes'), 1, "the post's likes are gone, others stay");
  t.equal(countRows(app, 'comments'), 1);
  for (const url of [gone.s3Url, gone.thumbnailUrl]) {
    t.equal((await app.inject({ method: 'GET', url })).statusCode, 404, `${url} no longer served`);
    t.notOk(existsSync(join(config.storage.localDir, url)), `${url} removed from disk`);
  }
  t.equal((await app.inject({ method: 'GET', url: keep.s3Url })).statusCode, 200, 'other posts untouched');
  t.equal((await del(test, alice.token, gone.postid)).statusCode, 404, 'deleting twice');
});

t.test('deleting an anonymous post leaves the public count alone', async (t) => {
  const test = await buildTestApp(t);
  const alice = await test.createUser('alice');
  const pub = (await createPost(test.app, alice.token, { s3Key: await upload(test.app, alice.token, await makeJpeg(300, 300)), caption: 'me' })).json();
  const anon = (
    await createPost(test.app, alice.token, { s3Key: await upload(test.app, alice.token, await makeJpeg(300, 300)), caption: 'not me', isAnonymous: true })
  ).json();
  t.match(counters(test.app, alice.id), { postCount: 2, publicPostCount: 1 });
  t.equal((await del(test, alice.token, anon.postid)).statusCode, 200);
  t.match(counters(test.app, alice.id), { postCount: 1, publicPostCount: 1 });
  t.equal((await del(test, alice.token, pub.postid)).statusCode, 200);
  t.match(counters(test.app, alice.id), { postCount: 0, publicPostCount: 0 });
});

t.test('deleting the current profile picture clears it', async (t) => {
  const test = await buildTestApp(t);
  const alice = await test.createUser('alice');
  const key = await upload(test.app, alice.token, await makeJpeg(300, 300), 'image/jpeg', { isProfilePicture: true });
  t.equal((await createPost(test.app, alice.token, { s3Key: key, isProfilePicture: true })).statusCode, 201);
  const { id } = test.app.database.sqlite.prepare('SELECT id FROM posts WHERE user_id = ?').get(alice.id) as { id: number };
  t.ok(counters(test.app, alice.id).profilePictureKey);
  t.equal((await del(test, alice.token, id)).statusCode, 200);
  t.match(counters(test.app, alice.id), { profilePictureKey: null, postCount: 0, publicPostCount: 0 });
});
