import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { client, insertPost } from '../api/factories.js';
import { bellsAreExact } from './bells.js';
import { buildTestApp } from '../helpers.js';

interface Group {
  kind: string;
  post: { postid: number } | null;
  actors: Array<{ username: string }>;
  actorCount: number;
  count: number;
  excerpt: string | null;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

/** A post with its caption's listeners run in its transaction, as create-post does (posts/post-writes-repository.ts). */
function posted(app: FastifyInstance, userId: number, caption: string, isAnonymous = false) {
  return app.database.sqlite.transaction(() => {
    const post = insertPost(app.database.sqlite, { userId, caption, isAnonymous });
    app.postCaptions.written({ postId: post.id, userId, isAnonymous, caption, at: post.createdAt, created: true });
    return post;
  })();
}

async function people(t: Parameters<typeof buildTestApp>[0], names: string[]) {
  const { app, createUser } = await buildTestApp(t);
  const users = await Promise.all(names.map((n) => createUser(n)));
  const as = users.map((u) => client(app, u.token));
  const unread = async (i: number) => (await as[i]!('GET', '/api/notifications/unread')).json.unread as number;
  const groups = async (i: number) => (await as[i]!('GET', '/api/notifications')).json as Group[];
  return { app, db: app.database.sqlite, users, as, unread, groups };
}

t.test('a caption naming someone twice notifies them once: "alice mentioned you in a post"', async (t) => {
  const { app, db, users, as, unread, groups } = await people(t, ['alice', 'bob', 'carol']);
  const [alice, bob] = users;
  const post = posted(app, alice!.id, 'cheers @bob and @Bob again, @alice herself, @ghost and @carl@beer.example');
  t.equal(await unread(1), 1, "bob's bell: one");
  t.equal(await unread(0), 0, 'naming oneself notifies nobody');
  t.match(await groups(1), [{ kind: 'mention', post: { postid: post.id }, actors: [{ username: 'alice' }], actorCount: 1, count: 1 }]);
  t.same(await groups(2), [], 'carol, not named, has nothing');

  const feed = (await as[2]!('GET', '/api/discover-posts')).json as Array<{ postid: number; mentions: string[] }>;
  t.same(feed.find((p) => p.postid === post.id)?.mentions, ['bob', 'alice'], 'the post lists the people who exist, once each, not @ghost');
  t.same(
    db.prepare('SELECT name, mentioned_id IS NULL AS remote FROM mentions WHERE recipient_id IS NULL ORDER BY id').all(),
    [{ name: '@alice', remote: 0 }, { name: '@carl@beer.example', remote: 1 }],
    '@name@host is kept for federation, notifying nobody here',
  );
  t.equal(bob!.id > 0, true);
  t.ok(bellsAreExact(db));
});

t.test('a comment mention: "bob mentioned you in a comment", taken back when the comment is deleted', async (t) => {
  const { app, db, as, unread, groups, users } = await people(t, ['alice', 'bob', 'carol']);
  const post = posted(app, users[0]!.id, 'first round');
  const res = await as[1]!('POST', '/api/comment', { postId: post.id, comment: 'come here @carol' });
  t.equal(res.status, 201);
  t.same(res.json.mentions, ['carol'], 'the comment lists the person it names');
  t.equal(await unread(2), 1);
  t.match(await groups(2), [{ kind: 'commentMention', actors: [{ username: 'bob' }], excerpt: 'come here @carol' }]);
  const list = (await as[0]!('GET', `/api/comment?postId=${post.id}`)).json as Array<{ mentions: string[] }>;
  t.same(list[0]?.mentions, ['carol'], 'and so does every list of comments');

  t.equal((await as[1]!('DELETE', `/api/comment?commentId=${res.json.comment_id}`)).status, 200);
  t.equal(await unread(2), 0, 'deleting the comment takes the bell back');
  t.same(await groups(2), [], 'and the notification');
  t.ok(bellsAreExact(db));
});

t.test('a mention in an anonymous post says "Someone": no answer names its author', async (t) => {
  const { app, db, as, unread, groups, users } = await people(t, ['alice', 'bob']);
  const post = posted(app, users[0]!.id, 'guess who @bob', true);
  t.equal(await unread(1), 1);
  const [group] = await groups(1);
  t.match(group, { kind: 'mention', post: { postid: post.id }, actors: [], actorCount: 0, count: 1 });
  t.notMatch(JSON.stringify(await groups(1)), /alice/, 'the screen names nobody');

  // The author of an anonymous post commenting on it is anonymous: so is the comment's mention.
  await tick();
  t.equal((await as[0]!('POST', '/api/comment', { postId: post.id, comment: 'really, @bob' })).status, 201);
  const again = await groups(1);
  t.match(again[0], { kind: 'commentMention', actors: [], actorCount: 0 });
  t.notMatch(JSON.stringify(again), /alice/, 'still nobody named');
  t.ok(bellsAreExact(db));
});

t.test('nobody is notified of a mention across a block, either way; a block made later takes it back', async (t) => {
  const { app, db, as, unread, groups, users } = await people(t, ['alice', 'bob', 'carol']);
  const [alice, bob, carol] = users;
  t.equal((await as[2]!('POST', '/api/account/alice/block')).status < 300, true, 'carol blocks alice');
  posted(app, alice!.id, 'hey @carol');
  t.equal(await unread(2), 0, 'the blocked person mentioning her rings nothing');
  t.same(await groups(2), []);
  posted(app, carol!.id, 'hey @alice');
  t.equal(await unread(0), 0, 'nor the other way');

  posted(app, alice!.id, 'hey @bob');
  t.equal(await unread(1), 1);
  t.equal((await as[1]!('POST', '/api/account/alice/block')).status < 300, true, 'bob blocks alice after');
  t.equal(await unread(1), 0, "the block takes the mention off bob's bell");
  t.same(await groups(1), []);
  t.equal((await as[1]!('DELETE', '/api/account/alice/block')).status < 300, true, 'and unblocks');
  t.equal(await unread(1), 1, 'which puts it back');
  t.equal(bob!.id > 0, true);
  t.ok(bellsAreExact(db));
});

t.test('an edit that adds a mention notifies the new person only; one it drops is taken back; deleting the post takes the rest', async (t) => {
  const { app, db, as, unread, groups, users } = await people(t, ['alice', 'bob', 'carol', 'dave']);
  const post = posted(app, users[0]!.id, 'with @bob');
  t.equal(await unread(1), 1);
  await tick();
  const edit = await as[0]!('PATCH', `/api/post?postId=${post.id}`, { caption: 'with @bob and @carol' });
  t.equal(edit.status, 200, edit.body);
  t.same(edit.json.mentions, ['bob', 'carol'], 'the edit answers whom the caption names now');
  t.equal(await unread(1), 1, 'bob, already named, is not notified again');
  t.equal(await unread(2), 1, 'carol, new, is');
  t.equal((await groups(1)).length, 1);

  await as[0]!('PATCH', `/api/post?postId=${post.id}`, { caption: 'with @carol and @dave' });
  t.equal(await unread(1), 0, 'the edit that drops bob takes his notification back');
  t.same(await groups(1), []);
  t.equal(await unread(3), 1, 'dave is notified');
  t.equal(await unread(2), 1, 'carol still once');
  const feed = (await as[1]!('GET', '/api/discover-posts')).json as Array<{ mentions: string[] }>;
  t.same(feed[0]?.mentions, ['carol', 'dave'], 'the post links the people it names now');

  t.equal((await as[1]!('POST', '/api/comment', { postId: post.id, comment: 'and @dave' })).status, 201);
  t.equal(await unread(3), 2);
  t.equal((await as[0]!('DELETE', `/api/post?postId=${post.id}`)).status, 200);
  for (const i of [1, 2, 3]) {
    t.equal(await unread(i), 0, `deleting the post takes back every mention in it and its comments (${i})`);
    t.same(await groups(i), []);
  }
  t.equal(db.prepare('SELECT count(*) FROM mentions').pluck().get(), 0, 'no mention rows stay');
  t.ok(bellsAreExact(db));
});

t.test("a suspended writer's mentions leave the bell; injection through a name is text", async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'admin' });
  const admin = await createUser('admin');
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const [asAdmin, asBob] = [client(app, admin.token), client(app, bob.token)];
  posted(app, alice.id, 'yo @bob <img src=x onerror=alert(1)> @<script>');
  const unread = async () => (await asBob('GET', '/api/notifications/unread')).json.unread as number;
  t.equal(await unread(), 1);
  const feed = (await asBob('GET', '/api/discover-posts')).json as Array<{ caption: string; mentions: string[] }>;
  t.same(feed[0]?.mentions, ['bob'], 'a name with markup is no mention');
  t.equal(feed[0]?.caption, 'yo @bob <img src=x onerror=alert(1)> @<script>', 'the caption is stored as written, for the web app to show as text');
  t.equal((await asAdmin('POST', '/api/admin/users/alice/suspend', { reason: 'spam' })).status, 200);
  t.equal(await unread(), 0, "suspending the writer takes the mention off bob's bell");
  t.equal((await asAdmin('DELETE', '/api/admin/users/alice/suspend', {})).status, 200);
  t.equal(await unread(), 1, 'and lifting it puts it back');
  t.ok(bellsAreExact(app.database.sqlite));
});

t.test("removing an account takes back the mentions it made and those in comments on its posts", async (t) => {
  const { app, db, as, unread, users } = await people(t, ['alice', 'bob', 'carol', 'dave']);
  const post = posted(app, users[0]!.id, 'hello @bob');
  t.equal((await as[2]!('POST', '/api/comment', { postId: post.id, comment: 'ping @dave' })).status, 201);
  t.equal(await unread(1), 1);
  t.equal(await unread(3), 1);
  t.equal((await as[0]!('DELETE', '/api/account', { confirmUsername: 'alice' })).status, 200);
  t.equal(await unread(1), 0, "alice's own mention of bob is gone");
  t.equal(await unread(3), 0, "carol's mention of dave on alice's post went with the post");
  t.equal(db.prepare('SELECT count(*) FROM mentions').pluck().get(), 0);
  t.ok(bellsAreExact(db));
});
