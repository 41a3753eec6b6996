import type Database from 'better-sqlite3';
import t from 'tap';
import { client, insertPost } from '../api/factories.js';
import { recountAllUnread } from '../../src/social/notifications-repository.js';
import { buildTestApp } from '../helpers.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

interface Group {
  groupId: string;
  kind: 'like' | 'comment' | 'follow';
  post: { postid: number; thumbnailUrl: string } | null;
  day: string;
  actors: Array<{ username: string; profilePictureUrl: string | null }>;
  actorCount: number;
  count: number;
  excerpt: string | null;
  unread: boolean;
  latestTime: number;
  cursor: string;
}

/**
 * Every bell next to what the rows say (the count the writes keep, recounted in a transaction
 * undone), and every notified_at at or after the newest notification there is.
 */
function countsAreExact(db: Database.Database): boolean {
  const read = () => db.prepare<[], [number, number, number]>('SELECT id, unread_notifications, notified_at FROM users ORDER BY id').raw().all();
  const kept = read();
  let counted: Array<[number, number, number]>;
  db.exec('SAVEPOINT recount');
  try {
    recountAllUnread(db);
    counted = read();
  } finally {
    db.exec('ROLLBACK TO recount');
    db.exec('RELEASE recount');
  }
  const bells = (rows: Array<[number, number, number]>) => JSON.stringify(rows.map(([id, unread]) => [id, unread]));
  const behind = kept.filter(([, , notifiedAt], i) => notifiedAt < counted[i]![2]);
  if (bells(kept) !== bells(counted)) console.error('kept', kept, 'counted', counted);
  if (behind.length > 0) console.error('notified_at behind the rows', behind, counted);
  return bells(kept) === bells(counted) && behind.length === 0;
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

  // A millisecond apart at least, so "newest first" has one answer.
  for (const act of [
    () => asCarol('POST', '/api/like', { postId: post.id }),
    () => asDave('POST', '/api/like', { postId: post.id }),
    () => asBob('POST', '/api/like', { postId: post.id }),
    () => asBob('POST', '/api/comment', { postId: post.id, comment: 'cheers' }),
    () => asCarol('POST', '/api/comment', { postId: post.id, comment: 'nice one' }),
    () => asBob('POST', '/api/comment', { postId: post.id, comment: 'another round?' }),
    () => asDave('POST', '/api/account/alice/follow'),
    () => asBob('POST', '/api/account/alice/follow'),
  ]) {
    await act();
    await tick();
  }
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
  const read = await asAlice('POST', '/api/notifications/read', { upTo: comments.latestTime });
  t.same(read.json, { unread: 2 }, 'the two follows are newer than what was seen');
  t.same(((await asAlice('GET', '/api/notifications')).json as Group[]).map((g) => g.unread), [true, false, false]);
  t.same((await asAlice('POST', '/api/notifications/read', { upTo: follows.latestTime })).json, { unread: 0 });
  t.same((await asAlice('POST', '/api/notifications/read', { upTo: 1 })).json, { unread: 0 }, 'never moves back');
  t.equal((await asAlice('POST', '/api/notifications/read', { upTo: -1 })).status, 400);
  t.same((await asAlice('POST', '/api/notifications/read', { upTo: 1e13 })).json, { unread: 0 }, 'a time in the future (2286) marks only what exists');
  await asCarol('DELETE', `/api/like?postId=${post.id}`);
  t.equal(await unread(asAlice), 0, 'taking back a read one leaves the count alone');
  await tick();
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

t.test('groups are per UTC day', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const db = app.database.sqlite;
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const carol = await createUser('carol');
  const post = insertPost(db, { userId: alice.id });
  const day1 = Date.UTC(2026, 10, 20, 23, 59);
  const day2 = Date.UTC(2026, 10, 21, 0, 1);
  const like = db.prepare('INSERT INTO likes (post_id, user_id, created_at, recipient_id) VALUES (?, ?, ?, ?)');
  like.run(post.id, bob.id, day1, alice.id);
  like.run(post.id, carol.id, day2, alice.id);
  recountAllUnread(db); // rows written around the API count their bells as the bench seed does
  const groups = (await client(app, alice.token)('GET', '/api/notifications')).json as Group[];
  t.same(groups.map((g) => [g.day, g.actors.map((a) => a.username)]), [['2026-11-21', ['carol']], ['2026-11-20', ['bob']]]);
  t.ok(countsAreExact(db));
});

t.test('a like taken back leaves its day empty: the screen shows the day before, and marking read still counts what comes next', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const db = app.database.sqlite;
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const carol = await createUser('carol');
  const post = insertPost(db, { userId: alice.id });
  db.prepare('INSERT INTO likes (post_id, user_id, created_at, recipient_id) VALUES (?, ?, ?, ?)').run(post.id, bob.id, Date.UTC(2026, 10, 20, 12), alice.id);
  recountAllUnread(db);
  const [asAlice, asCarol] = [client(app, alice.token), client(app, carol.token)];
  await asCarol('POST', '/api/like', { postId: post.id });
  await asCarol('DELETE', `/api/like?postId=${post.id}`);
  const groups = (await asAlice('GET', '/api/notifications')).json as Group[];
  t.same(groups.map((g) => [g.day, g.actors.map((a) => a.username)]), [['2026-11-20', ['bob']]], "today is empty again; bob's like shows");
  const bobsLike = Date.UTC(2026, 10, 20, 12);
  t.equal(groups[0]!.latestTime, bobsLike);
  t.same((await asAlice('POST', '/api/notifications/read', { upTo: bobsLike })).json, { unread: 0 }, 'read up to what the screen showed');
  const notifiedAt = db.prepare('SELECT notified_at FROM users WHERE id = ?').pluck();
  t.equal(notifiedAt.get(alice.id), bobsLike, "notified_at is bob's like again, so the next marking reads one row");
  await tick();
  await asCarol('POST', '/api/like', { postId: post.id });
  t.equal(((await asAlice('GET', '/api/notifications/unread')).json as { unread: number }).unread, 1, 'the like after it is unread');
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
  await tick();
  await client(app, bob.token)('POST', '/api/comment', { postId: secret.id, comment: 'who is this?' });
  const mine = (await client(app, alice.token)('GET', '/api/notifications')).json as Group[];
  t.same(mine.map((g) => [g.kind, g.post?.postid]), [['comment', secret.id], ['like', secret.id]], 'the author hears of it');
  for (const other of [bob, carol]) {
    const res = await client(app, other.token)('GET', '/api/notifications');
    t.same(res.json, [], `${other.username} gets nothing`);
    t.notMatch(res.body, /alice/);
  }
});

t.test('blocks and suspensions take their notifications away while they last, and make no new ones', async (t) => {
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

  // Lifted, both come back: they are the likes, comments and follows themselves.
  t.equal((await client(app, olga.token)('DELETE', '/api/admin/users/sam/suspend', {})).status, 200);
  t.equal((await asAlice('GET', '/api/notifications/unread')).json.unread, 2, "sam's like and comment count again");
  const blockId = ((await asAlice('GET', '/api/blocks')).json as { blocks: Array<{ blockId: number }> }).blocks[0]!.blockId;
  t.equal((await asAlice('DELETE', `/api/blocks/${blockId}`)).status, 200);
  t.equal((await asAlice('GET', '/api/notifications/unread')).json.unread, 3, "bob's like too (his follow went with the block)");
  t.same(
    ((await asAlice('GET', '/api/notifications')).json as Group[]).map((g) => [g.kind, g.actors.map((a) => a.username)]),
    [['comment', ['sam']], ['like', ['sam', 'bob']]],
  );
  t.ok(countsAreExact(db), 'every bell is what the rows say');
});

t.test('pages keep their place while new notifications arrive, across days', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const db = app.database.sqlite;
  const alice = await createUser('alice');
  const fans = await Promise.all(['bea', 'cal', 'dan', 'eve'].map((name) => createUser(name)));
  const posts = [0, 1, 2].map(() => insertPost(db, { userId: alice.id }));
  const like = db.prepare('INSERT INTO likes (post_id, user_id, created_at, recipient_id) VALUES (?, ?, ?, ?)');
  // Three days, two posts liked a day (one of them twice), the newest day first on screen.
  const day = (d: number, h: number) => Date.UTC(2026, 10, 10 + d, h);
  for (let d = 0; d < 3; d++) {
    like.run(posts[d]!.id, fans[0]!.id, day(d, 9), alice.id);
    like.run(posts[(d + 1) % 3]!.id, fans[1]!.id, day(d, 10), alice.id);
    like.run(posts[(d + 1) % 3]!.id, fans[2]!.id, day(d, 11), alice.id);
  }
  recountAllUnread(db);
  const asAlice = client(app, alice.token);
  const all = (await asAlice('GET', '/api/notifications')).json as Group[];
  t.same(all.map((g) => [g.day, g.post!.postid, g.count]), [
    ['2026-11-12', posts[0]!.id, 2], ['2026-11-12', posts[2]!.id, 1],
    ['2026-11-11', posts[2]!.id, 2], ['2026-11-11', posts[1]!.id, 1],
    ['2026-11-10', posts[1]!.id, 2], ['2026-11-10', posts[0]!.id, 1],
  ]);
  const seen: string[] = [];
  let cursor = '';
  for (let pageNo = 0; pageNo < 10; pageNo++) {
    const page = (await asAlice('GET', `/api/notifications?limit=2${cursor}`)).json as Group[];
    if (page.length === 0) break;
    seen.push(...page.map((g) => g.groupId));
    cursor = `&cursor=${page.at(-1)!.cursor}`;
    // Someone likes while alice scrolls: it goes on top, and her next page does not move.
    await client(app, fans[3]!.token)('POST', '/api/like', { postId: posts[pageNo % 3]!.id }).catch(() => undefined);
  }
  t.same(seen, all.map((g) => g.groupId), 'every group once, in order');
  t.ok(countsAreExact(db));
});

t.test('a person with no notifications, or only ones they made themselves, has an empty screen', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const asAlice = client(app, alice.token);
  const post = insertPost(app.database.sqlite, { userId: alice.id });
  await asAlice('POST', '/api/like', { postId: post.id });
  t.same((await asAlice('GET', '/api/notifications')).json, []);
  t.same((await asAlice('POST', '/api/notifications/read', { upTo: Date.now() })).json, { unread: 0 });
  t.equal((await asAlice('GET', '/api/notifications?limit=51')).status, 400, 'at most 50 a page');
});

t.test('every bell stays what the rows say through blocks, suspensions and removals, read or not', async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'olga' });
  const db = app.database.sqlite;
  const olga = await createUser('olga');
  const people = await Promise.all(['ann', 'ben', 'cat', 'dan'].map((name) => createUser(name)));
  const [ann, ben, cat, dan] = people as [(typeof people)[0], (typeof people)[0], (typeof people)[0], (typeof people)[0]];
  const as = (who: typeof ann) => client(app, who.token);
  const postsOf = new Map(people.map((p) => [p.id, [insertPost(db, { userId: p.id }), insertPost(db, { userId: p.id })]]));
  // Everyone likes, comments on and follows everyone else: half of it before each has read theirs.
  const actAll = async (round: string) => {
    for (const actor of people) {
      for (const other of people) {
        if (other === actor) continue;
        const post = postsOf.get(other.id)![round === 'first' ? 0 : 1]!;
        await as(actor)('POST', '/api/like', { postId: post.id });
        await as(actor)('POST', '/api/comment', { postId: post.id, comment: `${round} from ${actor.username}` });
      }
    }
  };
  await actAll('first');
  for (const p of people) await as(p)('POST', '/api/account/' + (p === ann ? 'ben' : 'ann') + '/follow');
  await tick();
  for (const p of [ann, cat]) await as(p)('POST', '/api/notifications/read', { upTo: Date.now() });
  await tick();
  await actAll('second');
  t.ok(countsAreExact(db), 'after the writes');

  const steps: Array<[string, () => Promise<unknown>]> = [
    ['ann blocks ben', () => as(ann)('POST', '/api/account/ben/block')],
    ['cat blocks ann', () => as(cat)('POST', '/api/account/ann/block')],
    ['olga suspends ben', () => as(olga)('POST', '/api/admin/users/ben/suspend', { reason: 'spam' })],
    ['olga suspends dan', () => as(olga)('POST', '/api/admin/users/dan/suspend', { reason: 'spam' })],
    ['ben unlikes (refused while suspended)', () => as(ben)('DELETE', `/api/like?postId=${postsOf.get(cat.id)![1]!.id}`)],
    ['olga lifts ben', () => as(olga)('DELETE', '/api/admin/users/ben/suspend', {})],
    ['ann unblocks ben', async () => {
      const blocks = (await as(ann)('GET', '/api/blocks')).json as { blocks: Array<{ blockId: number }> };
      return as(ann)('DELETE', `/api/blocks/${blocks.blocks[0]!.blockId}`);
    }],
    ['ben unlikes one of cat\'s', () => as(ben)('DELETE', `/api/like?postId=${postsOf.get(cat.id)![1]!.id}`)],
    ['dan, suspended, removes his account', () => as(dan)('DELETE', '/api/account', { confirmUsername: 'dan' })],
    ['olga lifts dan (already gone)', () => as(olga)('DELETE', '/api/admin/users/dan/suspend', {})],
    ['cat removes her account', () => as(cat)('DELETE', '/api/account', { confirmUsername: 'cat' })],
  ];
  for (const [what, step] of steps) {
    await step();
    t.ok(countsAreExact(db), `after: ${what}`);
  }
  const bell = (await as(ann)('GET', '/api/notifications/unread')).json.unread as number;
  t.ok(bell > 0, 'ann still has unread ones (from ben, back after the unblock)');
});

t.test('the pages are the same whatever window the person\'s history sizes the first one at', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const db = app.database.sqlite;
  const alice = await createUser('alice');
  const fan = await createUser('bea');
  const like = db.prepare('INSERT INTO likes (post_id, user_id, created_at, recipient_id) VALUES (?, ?, ?, ?)');
  // One like every 9 days over 300 days, each on a post of its own, quiet stretches between: 34 groups, one a day.
  const days: string[] = [];
  for (let d = 0; d < 300; d += 9) {
    const at = Date.UTC(2025, 0, 1) + d * 86_400_000 + 3_600_000;
    like.run(insertPost(db, { userId: alice.id }).id, fan.id, at, alice.id);
    days.unshift(new Date(at).toISOString().slice(0, 10));
  }
  recountAllUnread(db);
  db.prepare('UPDATE users SET notified_at = ?, created_at = ? WHERE id = ?').run(Date.UTC(2025, 0, 1) + 300 * 86_400_000, Date.UTC(2024, 0, 1), alice.id);
  const asAlice = client(app, alice.token);
  const pages = async () => {
    const out: string[] = [];
    let cursor = '';
    for (let n = 0; n < 30; n++) {
      const page = (await asAlice('GET', `/api/notifications?limit=4${cursor}`)).json as Group[];
      if (page.length === 0) break;
      out.push(...page.map((g) => g.day));
      cursor = `&cursor=${page.at(-1)!.cursor}`;
    }
    return out;
  };
  // A quiet account (34 received over two years): the first window is the longest there is.
  db.prepare('UPDATE users SET likes_received = 34 WHERE id = ?').run(alice.id);
  const quiet = await pages();
  // A busy one (a million received): the first window is one day.
  db.prepare('UPDATE users SET likes_received = 1000000 WHERE id = ?').run(alice.id);
  const busy = await pages();
  t.same(quiet, days, 'every day once, newest first, for the quiet account');
  t.same(busy, days, 'and the same for the busy one');
});
