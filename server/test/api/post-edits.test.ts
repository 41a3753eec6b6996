import t from 'tap';
import { buildTestApp } from '../helpers.js';
import { client, insertPost } from './factories.js';

interface FeedPost {
  postid: number;
  caption: string;
  altText: string;
  editedAt: string | null;
  likeCount: number;
  likedByUser: boolean;
  commentCount: number;
  comments: Array<{ content: string }>;
  username: string | null;
  isOwner: boolean;
}
interface Version {
  caption: string;
  altText: string;
  created_at: string;
  current: boolean;
}

const inFeed = async (as: ReturnType<typeof client>, postId: number) =>
  ((await as('GET', '/api/discover-posts')).json as FeedPost[]).find((p) => p.postid === postId);

t.test('the author edits the caption and the description: every feed shows it, "Edited" with the time, likes and comments kept', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const asAlice = client(app, alice.token);
  const asBob = client(app, bob.token);
  const post = insertPost(app.database.sqlite, { userId: alice.id, caption: 'Cold one aftr work', createdAt: Date.now() - 60_000 });

  t.equal((await asBob('POST', '/api/like', { postId: post.id })).status, 201);
  t.equal((await asBob('POST', '/api/comment', { postId: post.id, comment: 'Cheers!' })).status, 201);
  const bellBefore = (await asAlice('GET', '/api/notifications')).json;
  t.equal(bellBefore.length, 2, 'a like and a comment ring her bell');
  t.equal((await inFeed(asBob, post.id))?.editedAt, null, 'not edited yet');
  t.same(((await asBob('GET', `/api/post-versions?postId=${post.id}`)).json as Version[]).map((v) => [v.caption, v.current]), [['Cold one aftr work', true]]);

  const before = Date.now();
  const res = await asAlice('PATCH', `/api/post?postId=${post.id}`, { caption: '  Cold one after work\u202E  ', altText: 'A brown bottle on the shelf' });
  t.equal(res.status, 200);
  t.equal(res.json.caption, 'Cold one after work', 'cleaned as when posting: trimmed, direction override dropped');
  t.equal(res.json.altText, 'A brown bottle on the shelf');
  t.ok(Date.parse(res.json.editedAt) >= before, 'editedAt is the time of the edit');

  for (const as of [asAlice, asBob]) {
    const seen = await inFeed(as, post.id);
    t.match(seen, { caption: 'Cold one after work', altText: 'A brown bottle on the shelf', editedAt: res.json.editedAt, likeCount: 1, commentCount: 1 });
    t.same(seen?.comments.map((c) => c.content), ['Cheers!'], 'the comment stays');
  }
  t.equal((await inFeed(asBob, post.id))?.likedByUser, true, "bob's like stays his");
  t.same((await asAlice('GET', '/api/notifications')).json.map((g: { kind: string }) => g.kind), bellBefore.map((g: { kind: string }) => g.kind), 'her notifications stay');
  const profile = (await asBob('GET', '/api/view-user-posts?username=alice')).json as { posts: FeedPost[] };
  t.equal(profile.posts[0]?.editedAt, res.json.editedAt, 'the profile grid says it too');

  // A second edit, through the photos list (one description per photo, by place).
  const second = await asAlice('PATCH', `/api/post?postId=${post.id}`, { photos: [{ index: 0, altText: 'A brown bottle, lime wedge' }] });
  t.equal(second.status, 200);
  t.equal(second.json.caption, 'Cold one after work', 'what is not sent stays');
  const versions = (await asBob('GET', `/api/post-versions?postId=${post.id}`)).json as Version[];
  t.same(
    versions.map((v) => [v.caption, v.altText, v.current]),
    [
      ['Cold one after work', 'A brown bottle, lime wedge', true],
      ['Cold one after work', 'A brown bottle on the shelf', false],
      ['Cold one aftr work', '', false],
    ],
    'newest first, the current text first',
  );
  t.equal(versions[0]!.created_at, second.json.editedAt, 'each version says when it was written');
  t.equal(versions[1]!.created_at, res.json.editedAt);
  t.equal(versions[2]!.created_at, new Date(post.createdAt).toISOString(), 'the first is the post itself');

  // The same text again is no edit.
  const same = await asAlice('PATCH', `/api/post?postId=${post.id}`, { caption: 'Cold one after work' });
  t.equal(same.json.editedAt, second.json.editedAt);
  t.equal(((await asBob('GET', `/api/post-versions?postId=${post.id}`)).json as Version[]).length, 3, 'no version repeats the current one');
});

t.test('bad edits: a clear 4xx and nothing changed', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const asAlice = client(app, alice.token);
  const asBob = client(app, bob.token);
  const db = app.database.sqlite;
  const post = insertPost(db, { userId: alice.id, caption: 'Original' });
  const picture = insertPost(db, { userId: alice.id, isProfilePicture: true });
  const state = () => db.prepare('SELECT caption, alt_text, edited_at FROM posts WHERE id = ?').get(post.id);
  const versionCount = () => db.prepare('SELECT count(*) AS n FROM post_versions').get();
  const unchanged = { state: state(), versions: versionCount() };

  const cases: Array<[string, ReturnType<typeof client>, string, unknown, number, RegExp?]> = [
    ["someone else's post", asBob, `/api/post?postId=${post.id}`, { caption: 'hacked' }, 403, /Only the author/],
    ['a post that does not exist', asAlice, '/api/post?postId=999999', { caption: 'x' }, 404],
    ['a profile picture', asAlice, `/api/post?postId=${picture.id}`, { caption: 'x' }, 404],
    ['no post id', asAlice, '/api/post', { caption: 'x' }, 400],
    ['a caption past 2200', asAlice, `/api/post?postId=${post.id}`, { caption: 'x'.repeat(2201) }, 400, /at most 2200/],
    ['a blank caption', asAlice, `/api/post?postId=${post.id}`, { caption: ' \u200B\n ' }, 400, /blank/],
    ['a description past 1500', asAlice, `/api/post?postId=${post.id}`, { altText: 'y'.repeat(1501) }, 400, /at most 1500/],
    ['a description past 1500 in photos', asAlice, `/api/post?postId=${post.id}`, { photos: [{ index: 0, altText: 'y'.repeat(1501) }] }, 400, /at most 1500/],
    ['a photo the post does not have', asAlice, `/api/post?postId=${post.id}`, { photos: [{ index: 1, altText: 'z' }] }, 400, /index must be 0/],
    ['the same photo twice', asAlice, `/api/post?postId=${post.id}`, { photos: [{ index: 0, altText: 'a' }, { index: 0, altText: 'b' }] }, 400, /twice/],
    ['altText and photos both', asAlice, `/api/post?postId=${post.id}`, { altText: 'a', photos: [{ index: 0, altText: 'b' }] }, 400, /not both/],
    ['nothing to change', asAlice, `/api/post?postId=${post.id}`, {}, 400, /Say what to change/],
    ['switching to anonymous', asAlice, `/api/post?postId=${post.id}`, { caption: 'x', isAnonymous: true }, 400],
    ['swapping the photo', asAlice, `/api/post?postId=${post.id}`, { caption: 'x', s3Key: 'uploads/1/x' }, 400],
    ['a caption that is not text', asAlice, `/api/post?postId=${post.id}`, { caption: 12 }, 400],
  ];
  for (const [name, as, url, body, status, message] of cases) {
    const res = await as('PATCH', url, body);
    t.equal(res.status, status, name);
    t.type(res.json.error, 'string', `${name}: an error code`);
    if (message) t.match(res.json.message, message, `${name}: says why`);
    t.same({ state: state(), versions: versionCount() }, unchanged, `${name}: nothing changed`);
  }

  // A removed post: gone, so 404, and no version is left of it.
  t.equal((await asAlice('DELETE', `/api/post?postId=${post.id}`)).status, 200);
  const gone = await asAlice('PATCH', `/api/post?postId=${post.id}`, { caption: 'back again' });
  t.equal(gone.status, 404);
  t.equal(gone.json.error, 'not_found');
  t.equal((await asAlice('GET', `/api/post-versions?postId=${post.id}`)).status, 404);

  // A suspended author edits nothing (the account check answers first).
  const other = insertPost(db, { userId: alice.id, caption: 'Still here' });
  db.prepare('UPDATE users SET suspended_at = 1 WHERE id = ?').run(alice.id);
  t.equal((await asAlice('PATCH', `/api/post?postId=${other.id}`, { caption: 'x' })).status, 403);
  t.equal((db.prepare('SELECT caption FROM posts WHERE id = ?').get(other.id) as { caption: string }).caption, 'Still here');
});

t.test('an anonymous post stays anonymous through its edits and its history', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const asAlice = client(app, alice.token);
  const asBob = client(app, bob.token);
  const secret = insertPost(app.database.sqlite, { userId: alice.id, caption: 'Guess who', isAnonymous: true });

  const edit = await asAlice('PATCH', `/api/post?postId=${secret.id}`, { caption: 'Guess who, again' });
  t.equal(edit.status, 200);
  const bodies = [
    edit.body,
    (await asBob('GET', `/api/post-versions?postId=${secret.id}`)).body,
    (await asBob('GET', '/api/discover-posts')).body,
  ];
  for (const body of bodies) {
    t.notMatch(body, /alice/i, 'no answer names her');
    t.notMatch(body, new RegExp(`"userid":${alice.id}\\b`), 'nor gives her id');
  }
  const seen = await inFeed(asBob, secret.id);
  t.match(seen, { caption: 'Guess who, again', username: null, isOwner: false });
  t.ok(seen?.editedAt, 'edited, for everyone to see');
  const versions = (await asBob('GET', `/api/post-versions?postId=${secret.id}`)).json as Version[];
  t.same(Object.keys(versions[0]!).sort(), ['altText', 'caption', 'created_at', 'current'], 'a version carries no author');
  t.match(await inFeed(asAlice, secret.id), { isOwner: true, isAnonymous: true }, 'her own view knows it is hers');
  // Someone else editing it learns only that it is not theirs, as when deleting it.
  t.same((await asBob('PATCH', `/api/post?postId=${secret.id}`, { caption: 'x' })).json, { error: 'forbidden', message: 'Only the author can edit this post.' });
});

t.test('earlier versions follow the post: whoever cannot see it cannot read them', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const carol = await createUser('carol');
  const asAlice = client(app, alice.token);
  const asBob = client(app, bob.token);
  const asCarol = client(app, carol.token);
  const db = app.database.sqlite;
  const post = insertPost(db, { userId: alice.id, caption: 'First words' });
  await asAlice('PATCH', `/api/post?postId=${post.id}`, { caption: 'Second words' });

  t.equal((await asCarol('GET', `/api/post-versions?postId=${post.id}`)).status, 200);
  t.equal((await asAlice('POST', '/api/account/bob/block')).status, 200);
  const blocked = await asBob('GET', `/api/post-versions?postId=${post.id}`);
  t.equal(blocked.status, 404, 'a block by name hides the history as it hides the post');
  t.notMatch(blocked.body, /First words/);
  db.prepare('UPDATE posts SET hidden = 1 WHERE id = ?').run(post.id);
  t.equal((await asCarol('GET', `/api/post-versions?postId=${post.id}`)).status, 404, "a suspended author's hidden post: neither");
  t.equal((await asCarol('GET', '/api/post-versions?postId=abc')).status, 400);
  t.equal((await asCarol('GET', '/api/post-versions?postId=999999')).status, 404);
});

t.test('operators see what a reported post said before it was edited', async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'olga' });
  const olga = await createUser('olga');
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const asOlga = client(app, olga.token);
  const asAlice = client(app, alice.token);
  const asBob = client(app, bob.token);
  const post = insertPost(app.database.sqlite, { userId: alice.id, caption: 'Buy cheap pills at spam.example', isAnonymous: true });
  const quiet = insertPost(app.database.sqlite, { userId: alice.id, caption: 'Never edited' });
  t.equal((await asBob('POST', '/api/reports', { kind: 'post', id: post.id, reason: 'spam' })).status, 201);
  t.equal((await asBob('POST', '/api/reports', { kind: 'post', id: quiet.id, reason: 'other' })).status, 201);
  await asAlice('PATCH', `/api/post?postId=${post.id}`, { caption: 'Just a beer', altText: 'A beer' });

  const { reports } = (await asOlga('GET', '/api/admin/overview')).json as {
    reports: Array<{ itemId: number; text: string; author: string; editedAt: string | null; history: Array<{ caption: string; altText: string; created_at: string }> }>;
  };
  const reported = reports.find((r) => r.itemId === post.id)!;
  t.equal(reported.text, 'Just a beer', 'the post as it is now');
  t.equal(reported.author, 'alice', 'operators see the author, as for every report');
  t.ok(reported.editedAt);
  t.same(reported.history.map((v) => [v.caption, v.altText]), [['Buy cheap pills at spam.example', '']], 'and what it said when reported');
  t.match(reports.find((r) => r.itemId === quiet.id), { editedAt: null, history: [] }, 'an unedited post has no history');
});

t.test('an edit and the version it keeps are one transaction: when the edit fails, no version is left', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const asAlice = client(app, alice.token);
  const db = app.database.sqlite;
  const post = insertPost(db, { userId: alice.id, caption: 'Before' });
  // The post's update fails after the version row was written (a disk error, say).
  db.exec("CREATE TEMP TRIGGER fail_edit BEFORE UPDATE OF caption ON posts BEGIN SELECT RAISE(ABORT, 'simulated failure'); END");
  const res = await asAlice('PATCH', `/api/post?postId=${post.id}`, { caption: 'After' });
  t.equal(res.status, 500, 'our failure, answered as one');
  t.notMatch(res.body, /simulated|SQLITE/, 'without its details');
  t.equal((db.prepare('SELECT count(*) AS n FROM post_versions').get() as { n: number }).n, 0, 'no version of an edit that did not happen');
  t.match(db.prepare('SELECT caption, edited_at AS editedAt FROM posts WHERE id = ?').get(post.id), { caption: 'Before', editedAt: null });
  db.exec('DROP TRIGGER fail_edit');
  t.equal((await asAlice('PATCH', `/api/post?postId=${post.id}`, { caption: 'After' })).status, 200, 'and the same edit goes through once it can');
});
