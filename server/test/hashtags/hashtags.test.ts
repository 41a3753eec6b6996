import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { client, insertPost } from '../api/factories.js';
import { buildTestApp } from '../helpers.js';
import { createPost, makeJpeg, upload } from '../media/upload-helpers.js';

interface FeedPost {
  postid: number;
  caption: string;
  username: string | null;
  profilePictureUrl: string | null;
  isAnonymous: boolean;
  cursor: string;
  mentions: string[];
}

/**
 * A post as create-post writes it, without the image pipeline: its row (the factory), then the
 * caption's listeners in the same transaction, as posts/post-writes-repository.ts calls them.
 */
function tagged(app: FastifyInstance, userId: number, caption: string, opts: { isAnonymous?: boolean; createdAt?: number } = {}) {
  return app.database.sqlite.transaction(() => {
    const post = insertPost(app.database.sqlite, { userId, caption, ...opts });
    app.postCaptions.written({ postId: post.id, userId, isAnonymous: opts.isAnonymous ?? false, caption, at: post.createdAt, created: true });
    return post;
  })();
}

const ids = (posts: FeedPost[]) => posts.map((p) => p.postid);

t.test('a caption tagged through create-post is on the tag page; editing the caption updates its tags', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const [asAlice, asBob] = [client(app, alice.token), client(app, bob.token)];

  const s3Key = await upload(app, alice.token, await makeJpeg(400, 300));
  const res = await createPost(app, alice.token, { s3Key, caption: 'Friday #ShowerBeer with @bob and @nobody', isAnonymous: false });
  t.equal(res.statusCode, 201, res.body);
  const created = res.json() as FeedPost;
  t.same(created.mentions, ['bob'], 'the answer names the person who exists, not @nobody');

  for (const path of ['showerbeer', 'ShowerBeer', encodeURIComponent('＃ｓｈｏｗｅｒｂｅｅｒ')]) {
    const page = await asBob('GET', `/api/hashtags/${path}`);
    t.equal(page.status, 200, path);
    t.same(ids(page.json), [created.postid], `/api/hashtags/${path} lists it`);
  }
  const search = await asBob('GET', `/api/search-tags?tag=${encodeURIComponent('#show')}`);
  t.same(search.json, [{ tag: 'showerbeer', postCount: 1 }], 'search #show finds the tag with its count');

  const edit = await asAlice('PATCH', `/api/post?postId=${created.postid}`, { caption: 'Friday #sauna' });
  t.equal(edit.status, 200, edit.body);
  t.same((await asBob('GET', '/api/hashtags/showerbeer')).json, [], 'the tag the edit dropped lists it no more');
  t.same(ids((await asBob('GET', '/api/hashtags/sauna')).json), [created.postid], 'the new one does');
  t.same((await asBob('GET', '/api/search-tags?tag=show')).json, [], 'a tag no post carries is not found');

  t.equal((await asAlice('DELETE', `/api/post?postId=${created.postid}`)).status, 200);
  t.same((await asBob('GET', '/api/hashtags/sauna')).json, [], 'deleting the post takes it off');
  t.equal(app.database.sqlite.prepare('SELECT count(*) FROM post_hashtags').pluck().get(), 0, 'and its tag rows');
  t.equal(app.database.sqlite.prepare('SELECT count(*) FROM hashtags').pluck().get(), 0, 'and the tag\'s count');
});

t.test('the tag page: newest first, keyset pages, anonymous posts without their author', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const asBob = client(app, bob.token);
  const asAlice = client(app, alice.token);
  const start = Date.now() - 100_000;
  const posts = Array.from({ length: 25 }, (_, i) => tagged(app, alice.id, `round ${i} #Beer`, { createdAt: start + i * 1000, isAnonymous: i === 24 }));
  tagged(app, alice.id, 'no tag here', { createdAt: start + 50_000 });
  tagged(app, alice.id, 'another #wine', { createdAt: start + 60_000 });

  const first = await asBob('GET', '/api/hashtags/beer');
  t.equal(first.status, 200);
  t.same(ids(first.json), posts.slice(5).reverse().map((p) => p.id), 'the 20 newest, newest first');
  const last = first.json[first.json.length - 1] as FeedPost;
  const second = await asBob('GET', `/api/hashtags/beer?cursor=${last.cursor}`);
  t.same(ids(second.json), posts.slice(0, 5).reverse().map((p) => p.id), 'the next page from the cursor');
  t.same((await asBob('GET', `/api/hashtags/beer?cursor=${(second.json.at(-1) as FeedPost).cursor}`)).json, [], 'then nothing');

  const anonymous = first.json[0] as FeedPost;
  t.equal(anonymous.isAnonymous, true);
  t.equal(anonymous.username, null, 'an anonymous post names nobody on the tag page');
  t.equal(anonymous.profilePictureUrl, null);
  t.notMatch(JSON.stringify(first.json.slice(0, 1)), /alice/, 'nothing in it names its author');
  t.equal(((await asAlice('GET', '/api/hashtags/beer')).json[0] as FeedPost).username, 'alice', 'its author sees it as theirs');
  t.same((await asBob('GET', '/api/search-tags?tag=b')).json, [{ tag: 'beer', postCount: 25 }]);
});

t.test('blocked, private, suspended and removed content is left out of the tag page', async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'admin' });
  const admin = await createUser('admin');
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const carol = await createUser('carol');
  const dave = await createUser('dave');
  const [asAdmin, asAlice, asBob, asCarol, asDave] = [admin, alice, bob, carol, dave].map((u) => client(app, u.token)) as [
    ReturnType<typeof client>, ReturnType<typeof client>, ReturnType<typeof client>, ReturnType<typeof client>, ReturnType<typeof client>,
  ];
  const byCarol = tagged(app, carol.id, 'carol #sauna');
  const byDave = tagged(app, dave.id, 'dave #sauna');
  const byAlice = tagged(app, alice.id, 'alice #sauna');
  const anonymousByCarol = tagged(app, carol.id, 'secret #sauna', { isAnonymous: true });
  const list = async (as: typeof asBob) => ids((await as('GET', '/api/hashtags/sauna')).json);
  t.same(await list(asBob), [anonymousByCarol.id, byAlice.id, byDave.id, byCarol.id]);

  t.equal((await asBob('POST', '/api/account/carol/block')).status < 300, true, 'bob blocks carol');
  t.same(await list(asBob), [anonymousByCarol.id, byAlice.id, byDave.id], "carol's named post is gone for bob; her anonymous one stays, or it would name her");
  t.same(await list(asCarol), [anonymousByCarol.id, byAlice.id, byDave.id, byCarol.id], 'carol still sees her own');

  t.equal((await asDave('PUT', '/api/account/privacy', { isPrivate: true })).status, 200);
  t.notOk((await list(asBob)).includes(byDave.id), "a private account's post is not listed for someone who does not follow it");
  t.ok((await list(asDave)).includes(byDave.id), 'its owner sees it');

  t.equal((await asAdmin('POST', '/api/admin/users/alice/suspend', { reason: 'spam' })).status, 200);
  t.notOk((await list(asBob)).includes(byAlice.id), "a suspended person's post is left out");

  t.equal((await asAlice('GET', '/api/hashtags/sauna')).status, 403, 'and the suspended person reads nothing');
  t.equal((await asCarol('DELETE', '/api/account', { confirmUsername: 'carol' })).status < 300, true, 'carol removes her account');
  t.same(await list(asBob), [], 'her posts are gone with it');
  t.equal(app.database.sqlite.prepare("SELECT post_count FROM hashtags WHERE tag = 'sauna'").pluck().get(), 2, "the tag's count follows: alice's hidden post and dave's");
});

t.test('bad input: a malformed or too long tag is a 400 that changes nothing', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const bob = await createUser('bob');
  const asBob = client(app, bob.token);
  for (const path of ['not%20a%20tag', '%3Cscript%3E', '1234', 'a'.repeat(101), encodeURIComponent('#'), 'beer%27%20OR%201%3D1--']) {
    const res = await asBob('GET', `/api/hashtags/${path}`);
    t.equal(res.status, 400, path.slice(0, 30));
    t.match(res.json, { error: String, message: /tag/ }, 'a message that says what a tag is');
  }
  t.match((await asBob('GET', `/api/hashtags/${'a'.repeat(101)}`)).json.message, /at most 100 characters/);
  t.equal((await asBob('GET', '/api/hashtags/beer?cursor=oops')).status, 400);
  t.equal((await asBob('GET', `/api/search-tags?tag=${encodeURIComponent('#<b>')}`)).status, 400);
  t.equal((await asBob('GET', '/api/search-tags?tag=')).status, 400);
  t.same((await asBob('GET', '/api/hashtags/beer')).json, [], 'a tag nobody used is an empty page, not an error');
});
