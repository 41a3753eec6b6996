import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { buildTestApp } from '../helpers.js';
import { createPost, makeJpeg, upload } from '../media/upload-helpers.js';
import { client } from './factories.js';

interface FeedPost {
  postid: number;
  caption: string;
  altText: string;
  editedAt: string | null;
  username: string | null;
  photos?: Array<{ altText: string }>;
}
interface Version {
  caption: string;
  altText: string;
  photos?: Array<{ altText: string }>;
  created_at: string;
  current: boolean;
}

/** A real album through create-post: each photo uploaded and processed, each with its description. */
async function makeAlbum(app: FastifyInstance, token: string, caption: string, alts: string[], isAnonymous = false) {
  const photos = [];
  for (const altText of alts) photos.push({ s3Key: await upload(app, token, await makeJpeg(300, 200)), altText });
  const res = await createPost(app, token, { caption, isAnonymous, photos });
  if (res.statusCode !== 201) throw new Error(res.body);
  return res.json().postid as number;
}

const inFeed = async (as: ReturnType<typeof client>, postId: number) =>
  ((await as('GET', '/api/discover-posts')).json as FeedPost[]).find((p) => p.postid === postId);
const alts = (list: Array<{ altText: string }> | undefined) => list?.map((p) => p.altText);

t.test("the author edits an album's third description: the feed shows it, its history keeps the old one", async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const asAlice = client(app, alice.token);
  const asBob = client(app, bob.token);
  const postId = await makeAlbum(app, alice.token, 'Three at the lake', ['The pier', 'Reeds', 'A heron, blurred']);

  const res = await asAlice('PATCH', `/api/post?postId=${postId}`, { photos: [{ index: 2, altText: '  A grey heron taking off\u202E ' }] });
  t.equal(res.status, 200, res.body);
  t.same(alts(res.json.photos), ['The pier', 'Reeds', 'A grey heron taking off'], 'cleaned as when posting; the others stay');
  t.equal(res.json.altText, 'The pier');
  t.ok(res.json.editedAt);

  const seen = await inFeed(asBob, postId);
  t.equal(seen?.photos?.[2]?.altText, 'A grey heron taking off', "the feed's third photo says it");
  t.same(alts(seen?.photos), ['The pier', 'Reeds', 'A grey heron taking off']);
  t.equal(seen?.editedAt, res.json.editedAt, '"Edited" with the time');

  // A second edit: the caption and the first two descriptions at once.
  const second = await asAlice('PATCH', `/api/post?postId=${postId}`, {
    caption: 'Three at the lake, at dawn',
    photos: [{ index: 0, altText: 'The wooden pier' }, { index: 1, altText: '' }],
  });
  t.equal(second.status, 200, second.body);
  const versions = (await asBob('GET', `/api/post-versions?postId=${postId}`)).json as Version[];
  t.same(
    versions.map((v) => [v.caption, alts(v.photos), v.current]),
    [
      ['Three at the lake, at dawn', ['The wooden pier', '', 'A grey heron taking off'], true],
      ['Three at the lake', ['The pier', 'Reeds', 'A grey heron taking off'], false],
      ['Three at the lake', ['The pier', 'Reeds', 'A heron, blurred'], false],
    ],
    'every version has every photo, newest first',
  );
  t.same(versions.map((v) => v.altText), ['The wooden pier', 'The pier', 'The pier'], 'altText stays the first photo');
  t.same(alts((await inFeed(asAlice, postId))?.photos), ['The wooden pier', '', 'A grey heron taking off']);

  // The same descriptions again is no edit.
  const same = await asAlice('PATCH', `/api/post?postId=${postId}`, { photos: [{ index: 2, altText: 'A grey heron taking off' }] });
  t.equal(same.json.editedAt, second.json.editedAt);
  t.equal(((await asBob('GET', `/api/post-versions?postId=${postId}`)).json as Version[]).length, 3);
});

t.test("bad album edits: 400, and nothing changes", async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const asAlice = client(app, alice.token);
  const postId = await makeAlbum(app, alice.token, 'Two', ['First', 'Second']);
  const db = app.database.sqlite;
  const state = () => ({
    post: db.prepare('SELECT caption, alt_text, edited_at FROM posts WHERE id = ?').get(postId),
    photos: db.prepare('SELECT alt_text FROM post_photos WHERE post_id = ? ORDER BY position').pluck().all(postId),
    versions: db.prepare('SELECT count(*) FROM post_versions').pluck().get(),
  });
  const before = state();
  const cases: Array<[string, unknown, number, RegExp]> = [
    ['an index past the album', { caption: 'Changed', photos: [{ index: 1, altText: 'ok' }, { index: 2, altText: 'z' }] }, 400, /2 photos: photos\[\]\.index must be 0 to 1, not 2/],
    ['the same photo twice', { photos: [{ index: 1, altText: 'a' }, { index: 1, altText: 'b' }] }, 400, /twice/],
    ['a description past 1500', { photos: [{ index: 1, altText: 'y'.repeat(1501) }] }, 400, /at most 1500/],
    ['an index past any album', { photos: [{ index: 10, altText: 'z' }] }, 400, /./],
  ];
  for (const [name, body, status, message] of cases) {
    const res = await asAlice('PATCH', `/api/post?postId=${postId}`, body);
    t.equal(res.status, status, name);
    t.equal(res.json.error, 'invalid_request', name);
    t.match(res.json.message, message, name);
  }
  const asBob = client(app, bob.token);
  t.equal((await asBob('PATCH', `/api/post?postId=${postId}`, { photos: [{ index: 1, altText: 'mine now' }] })).status, 403, "someone else's album");
  t.same(state(), before, 'no caption, description or version changed');
});

t.test("an anonymous album's edit and history name nobody, to anyone else", async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'olga' });
  await createUser('olga');
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const asAlice = client(app, alice.token);
  const asBob = client(app, bob.token);
  const postId = await makeAlbum(app, alice.token, 'Guess who', ['One', 'Two'], true);

  const edit = await asAlice('PATCH', `/api/post?postId=${postId}`, { caption: 'Guess who, again', photos: [{ index: 1, altText: 'Two, better' }] });
  t.equal(edit.status, 200, edit.body);
  const versions = await asBob('GET', `/api/post-versions?postId=${postId}`);
  for (const body of [edit.body, versions.body, (await asBob('GET', '/api/discover-posts')).body]) {
    t.notMatch(body, /alice/i, 'no answer names her');
    t.notMatch(body, new RegExp(`"userid":${alice.id}\\b`), 'nor gives her id');
  }
  const list = versions.json as Version[];
  t.same(list.map((v) => alts(v.photos)), [['One', 'Two, better'], ['One', 'Two']]);
  for (const v of list) t.same(Object.keys(v).sort(), ['altText', 'caption', 'created_at', 'current', 'photos'], 'a version carries no author');
  t.match(await inFeed(asBob, postId), { username: null, caption: 'Guess who, again' });
});

t.test("operators see every photo's description before a reported album was edited", async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'olga' });
  const olga = await createUser('olga');
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const postId = await makeAlbum(app, alice.token, 'Nice view', ['Lake', 'Buy pills at spam.example'], true);
  t.equal((await client(app, bob.token)('POST', '/api/reports', { kind: 'post', id: postId, reason: 'spam' })).status, 201);
  t.equal((await client(app, alice.token)('PATCH', `/api/post?postId=${postId}`, { photos: [{ index: 1, altText: 'Hills' }] })).status, 200);
  const { reports } = (await client(app, olga.token)('GET', '/api/admin/overview')).json as {
    reports: Array<{ itemId: number; history: Array<{ caption: string; photos?: Array<{ altText: string }> }> }>;
  };
  t.same(
    reports.find((r) => r.itemId === postId)?.history.map((v) => [v.caption, alts(v.photos)]),
    [['Nice view', ['Lake', 'Buy pills at spam.example']]],
    'the edit cannot hide what was reported',
  );
});

t.test("operators see every photo of a reported album, not only the first", async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'olga' });
  const olga = await createUser('olga');
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const album = await makeAlbum(app, alice.token, 'Four at the lake', ['The pier', '', 'A heron', 'Sunset']);
  const single = await makeAlbum(app, alice.token, 'Just one', ['A can']);
  for (const id of [album, single]) t.equal((await client(app, bob.token)('POST', '/api/reports', { kind: 'post', id, reason: 'other' })).status, 201);
  const comment = (await client(app, alice.token)('POST', '/api/comment', { postId: album, comment: 'rude words' })).json.comment_id as number;
  t.equal((await client(app, bob.token)('POST', '/api/reports', { kind: 'comment', id: comment, reason: 'other' })).status, 201);

  const { reports } = (await client(app, olga.token)('GET', '/api/admin/overview')).json as {
    reports: Array<{ itemId: number; kind: string; thumbnailUrl: string | null; albumPhotos: Array<{ thumbnailUrl: string; altText: string }> }>;
  };
  const reported = reports.find((r) => r.kind === 'post' && r.itemId === album)!;
  const feed = ((await client(app, olga.token)('GET', '/api/discover-posts')).json as Array<{ postid: number; photos?: Array<{ thumbnailUrl: string; altText: string }> }>)
    .find((p) => p.postid === album)!;
  t.equal(reported.thumbnailUrl, feed.photos![0]!.thumbnailUrl, 'the first photo as before');
  t.same(reported.albumPhotos, feed.photos!.slice(1).map((p) => ({ thumbnailUrl: p.thumbnailUrl, altText: p.altText })), 'and the other three, in order, with their descriptions');
  t.equal(reported.albumPhotos.length, 3);
  t.same(reports.find((r) => r.itemId === single)!.albumPhotos, [], 'a single photo has none');
  t.same(reports.find((r) => r.kind === 'comment' && r.itemId === comment)!.albumPhotos, [], 'nor a comment on the album');
});
