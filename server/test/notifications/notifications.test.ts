import type Database from 'better-sqlite3';
import t from 'tap';
import { client, insertPost } from '../api/factories.js';
import { buildTestApp } from '../helpers.js';

interface Group {
  groupId: number;
  kind: 'like' | 'comment' | 'follow';
  post: { postid: number; thumbnailUrl: string } | null;
  day: string;
  actors: Array<{ username: string; profilePictureUrl: string | null }>;
  actorCount: number;
  count: number;
  excerpt: string | null;
  unread: boolean;
  latestId: number;
  cursor: string;
}

/** Every kept count next to what the rows say: unread per person, each group's size and newest member. */
function countsAreExact(db: Database.Database): boolean {
  const users = db.prepare(`
    SELECT u.unread_notifications = (SELECT count(*) FROM notifications n WHERE n.user_id = u.id AND n.id > u.notifications_seen_id) AS ok
    FROM users u`).pluck().all() as number[];
  const groups = db.prepare(`
    SELECT g.count = (SELECT count(*) FROM notifications n WHERE n.group_id = g.id) AND g.count > 0
      AND g.latest_id = (SELECT max(id) FROM notifications n WHERE n.group_id = g.id) AS ok
    FROM notification_groups g`).pluck().all() as number[];
  return [...users, ...groups].every((ok) => ok === 1);
}

t.test('likes, comments and follows notify the person concerned, grouped per post and day, never for their own', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const db = app.database.sqlite;
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const carol = await createUser('carol');
  const dave = await createUser('dave');
  const [asAlice, asBob, asCarol, asDave] = [client(app, alice.token), client(app, bob.token), client(app, carol.token), client(app, dave.token)];
  const post = insertPost(db, { userId: alice.id, caption: 'first beer' });
  const unread = async (as: typeof asAlice) => (await as('GET', '/api/notifications/unread')).json.unread as number;

  t.equal(await unread(asAlice), 0, 'nothing yet');
  await asAlice('POST', '/api/like', { postId: post.id });
  await asAlice('POST', '/api/comment', { postId: post.id, comment: 'my own' });
  t.equal(await unread(asAlice), 0, 'her own like and comment make none');

  await asBob('POST', '/api/like', { postId: post.id });
  t.equal(await unread(asAlice), 1, "bob's like makes one");
  await asBob('DELETE', `/api/like?postId=${post.id}`);
  t.equal(await unread(asAlice), 0, 'undoing it takes it back');
  t.same((await asAlice('GET', '/api/notifications')).json, [], 'and its group');

  await asCarol('POST', '/api/like', { postId: post.id });
  await asDave('POST', '/api/like', { postId: post.id });
  await asBob('POST', '/api/like', { postId: post.id });
  await asBob('POST', '/api/comment', { postId: post.id, comment: 'cheers' });
  await asCarol('POST', '/api/comment', { postId: post.id, comment: 'nice one' });
  await asBob('POST', '/api/comment', { postId: post.id, comment: 'another round?' });
  await asDave('POST', '/api/account/alice/follow');
  await asBob('POST', '/api/account/alice/follow');
  t.equal(await unread(asAlice), 8, 'three likes, three comments, two follows');
  t.equal(await unread(asBob), 0, 'the people who acted get nothing');

  const groups = (await asAlice('GET', '/api/notifications')).json as Group[];
  t.same(groups.map((g) => g.kind), ['follow', 'comment', 'like'], 'one group each, newest first');
  const [follows, comments, likes] = groups as [Group, Group, Group];
  t.match(likes, { post: { postid: post.id }, count: 3, actorCount: 3, unread: true, excerpt: null });
  t.same(likes.actors.map((a) => a.username), ['bob', 'dave', 'carol'], 'newest people first');
  t.match(likes.post!.thumbnailUrl, /thumb/, 'with the post to show');
  t.match(comments, { count: 3, actorCount: 2, excerpt: 'another round?' }, 'comments count people once, with the newest text');
  t.same(comments.actors.map((a) => a.username), ['bob', 'carol']);
  t.match(follows, { post: null, count: 2, actorCount: 2 });
  t.same(follows.actors.map((a) => a.username), ['bob', 'dave']);
  t.equal(likes.day, new Date().toISOString().slice(0, 10), 'the UTC day');

  // Keyset pages: one group a page, then the next from its cursor, then nothing.
  const first = (await asAlice('GET', '/api/notifications?limit=1')).json as Group[];
  const second = (await asAlice('GET', `/api/notifications?limit=1&cursor=${first[0]!.cursor}`)).json as Group[];
  const third = (await asAlice('GET', `/api/notifications?limit=2&cursor=${second[0]!.cursor}`)).json as Group[];
  t.same([...first, ...second, ...third].map((g) => g.groupId), groups.map((g) => g.groupId), 'pages join up');
  t.same((await asAlice('GET', `/api/notifications?cursor=${third[0]!.cursor}`)).json, [], 'and end');
  t.equal((await asAlice('GET', '/api/notifications?cursor=abc')).status, 400, 'a malformed cursor is refused');

  // Marking read up to what was shown; a newer one stays unread.
  const read = await asAlice('POST', '/api/notifications/read', { upTo: comments.latestId });
  t.same(read.json, { unread: 2 }, 'the two follows are newer than what was seen');
  t.same(((await asAlice('GET', '/api/notifications')).json as Group[]).map((g) => g.unread), [true, false, false]);
  t.same((await asAlice('POST', '/api/notifications/read', { upTo: follows.latestId })).json, { unread: 0 });
  t.same((await asAlice('POST', '/api/notifications/read', { upTo: 1 })).json, { unread: 0 }, 'never moves back');
  t.equal((await asAlice('POST', '/api/notifications/read', { upTo: -1 })).status, 400);
  t.same((await asAlice('POST', '/api/notifications/read', { upTo: 1e12 })).json, { unread: 0 }, 'an id from the future marks only what exists');
  await asCarol('DELETE', `/api/like?postId=${post.id}`);
  t.equal(await unread(asAlice), 0, 'taking back a read one leaves the count alone');
  await asCarol('POST', '/api/like', { postId: post.id });
  t.equal(await unread(asAlice), 1, 'a new one is unread, even after that');

  // Deleting a comment takes its notification; deleting the post takes them all.
  const own = (await asBob('GET', `/api/comment?postId=${post.id}`)).json as Array<{ comment_id: number; content: string }>;
  const cheers = own.find((c) => c.content === 'cheers')!;
  await asBob('DELETE', `/api/comment?commentId=${cheers.comment_id}`);
  const after = ((await asAlice('GET', '/api/notifications')).json as Group[]).find((g) => g.kind === 'comment')!;
  t.match(after, { count: 2, actorCount: 2 }, 'the deleted comment is gone from its group');
  t.ok(countsAreExact(db), 'every kept count is exact');
  await asAlice('DELETE', `/api/post?postId=${post.id}`);
  t.same(((await asAlice('GET', '/api/notifications')).json as Group[]).map((g) => g.kind), ['follow'], 'the post went with its notifications');
  t.equal(await unread(asAlice), 0);
  t.ok(countsAreExact(db), 'still exact');
  t.equal((await app.inject({ method: 'GET', url: '/api/notifications/unread' })).statusCode, 401, 'signed in only');
});

t.test('groups are per UTC day, whatever way the like was written', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const db = app.database.sqlite;
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const carol = await createUser('carol');
  const post = insertPost(db, { userId: alice.id });
  const day1 = Date.UTC(2026, 10, 20, 23, 59);
  const day2 = Date.UTC(2026, 10, 21, 0, 1);
  db.prepare('INSERT INTO likes (post_id, user_id, created_at) VALUES (?, ?, ?)').run(post.id, bob.id, day1);
  db.prepare('INSERT INTO likes (post_id, user_id, created_at) VALUES (?, ?, ?)').run(post.id, carol.id, day2);
  const groups = (await client(app, alice.token)('GET', '/api/notifications')).json as Group[];
  t.same(groups.map((g) => [g.day, g.actors.map((a) => a.username)]), [['2026-11-21', ['carol']], ['2026-11-20', ['bob']]]);
  t.ok(countsAreExact(db));
});

t.test('an anonymous post notifies its author and names them to nobody else', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const db = app.database.sqlite;
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const carol = await createUser('carol');
  const secret = insertPost(db, { userId: alice.id, caption: 'who am I', isAnonymous: true });
  await client(app, bob.token)('POST', '/api/like', { postId: secret.id });
  await client(app, bob.token)('POST', '/api/comment', { postId: secret.id, comment: 'who is this?' });
  const mine = (await client(app, alice.token)('GET', '/api/notifications')).json as Group[];
  t.same(mine.map((g) => [g.kind, g.post?.postid]), [['comment', secret.id], ['like', secret.id]], 'the author hears of it');
  for (const other of [bob, carol]) {
    const res = await client(app, other.token)('GET', '/api/notifications');
    t.same(res.json, [], `${other.username} gets nothing`);
    t.notMatch(res.body, /alice/);
  }
});

t.test('blocks and suspensions take their notifications away, and make no new ones', async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'olga' });
  const db = app.database.sqlite;
  const olga = await createUser('olga');
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const sam = await createUser('sam');
  const [asAlice, asBob, asSam] = [client(app, alice.token), client(app, bob.token), client(app, sam.token)];
  const post = insertPost(db, { userId: alice.id });
  const bobPost = insertPost(db, { userId: bob.id });
  await asBob('POST', '/api/like', { postId: post.id });
  await asBob('POST', '/api/account/alice/follow');
  await asAlice('POST', '/api/like', { postId: bobPost.id });
  await asSam('POST', '/api/like', { postId: post.id });
  await asSam('POST', '/api/comment', { postId: post.id, comment: 'spam spam' });
  t.equal((await asAlice('GET', '/api/notifications/unread')).json.unread, 4);

  t.equal((await asAlice('POST', '/api/account/bob/block')).status, 200);
  const left = (await asAlice('GET', '/api/notifications')).json as Group[];
  t.notOk(left.some((g) => g.actors.some((a) => a.username === 'bob')), "bob's are gone for alice");
  t.same((await asBob('GET', '/api/notifications')).json, [], "and alice's for bob");
  t.equal((await asBob('POST', '/api/like', { postId: post.id })).status, 404, 'no new ones: the like itself is refused');
  t.equal((await asAlice('GET', '/api/notifications/unread')).json.unread, 2);

  t.equal((await client(app, olga.token)('POST', '/api/admin/users/sam/suspend', { reason: 'spam' })).status, 200);
  t.same((await asAlice('GET', '/api/notifications')).json, [], "a suspended person's are gone");
  t.equal((await asAlice('GET', '/api/notifications/unread')).json.unread, 0);
  t.ok(countsAreExact(db));
});
