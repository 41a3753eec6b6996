import { Flag } from '@fedify/vocab';
import t from 'tap';
import { client } from '../api/factories.js';
import { createPost, makeJpeg, upload } from '../media/upload-helpers.js';
import { eventually } from './peer.js';
import { followAcross, twoServers } from './two-servers.js';

// Issue 50, item 1: a limited server (Mastodon's "silence") and allow-list mode, on one pair of
// real servers (one set-up for the whole file: each case builds on the one before).

type Post = { postid: number; caption: string; username: string };
const captions = (json: unknown) => (json as Post[]).map((p) => p.caption);

t.test('limit, then allow-list mode, between two real servers', async (t) => {
  const { a, b } = await twoServers(t, { ADMIN_USERNAMES: 'olga' });
  const olga = await a.createUser('olga');
  const alice = await a.createUser('alice');
  const carol = await a.createUser('carol');
  const bob = await b.createUser('bob');
  const asOlga = client(a.app, olga.token);
  const asAlice = client(a.app, alice.token);
  const asCarol = client(a.app, carol.token);
  const asBob = client(b.app, bob.token);
  const bobThere = `bob@${b.host}`;
  const sqlite = a.app.database.sqlite;
  const limitedFlag = () => sqlite.prepare('SELECT limited FROM users WHERE username = ?').pluck().get(bobThere);

  // Alice follows Bob; Bob follows Alice and Carol (so their posts reach him); Bob posts with a tag.
  await followAcross(a, alice.token, b, bob);
  await followAcross(b, bob.token, a, carol);
  await followAcross(b, bob.token, a, alice);
  await eventually('the follows are accepted', async () =>
    (await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(bobThere)}`)).json.isFollowing === true &&
    (await asCarol('GET', '/api/account/carol/followers')).json.length === 1 &&
    (await asAlice('GET', '/api/account/alice/followers')).json.length === 1);
  await createPost(b.app, bob.token, { s3Key: await upload(b.app, bob.token, await makeJpeg(320, 240)), caption: 'over there #seaside' });
  await eventually("Bob's post arrives", async () => captions((await asAlice('GET', '/api/followFeed')).json).includes('over there #seaside'));
  t.ok(captions((await asCarol('GET', '/api/discover-posts')).json).includes('over there #seaside'), 'before the limit, Carol sees it on Discover');
  t.equal((await asCarol('GET', '/api/search-profiles?username=bob')).json.length, 1, 'and finds him by name');

  t.test('limit: shown only to those who follow them', async (t) => {
    const limited = await asOlga('PUT', '/api/admin/federation/blocks', { domain: b.host, severity: 'limit', privateComment: 'noisy' });
    t.equal(limited.status, 200);
    t.equal(limited.json.removedPeople, 0, 'nobody is removed');
    t.equal(limitedFlag(), 1, 'his row is marked limited in the block\'s transaction');

    // Carol does not follow him: his post leaves Discover, the tag page and search for her.
    t.notOk(captions((await asCarol('GET', '/api/discover-posts')).json).includes('over there #seaside'), 'gone from her Discover');
    t.same((await asCarol('GET', '/api/hashtags/seaside')).json, [], 'gone from the tag page for her');
    t.same((await asCarol('GET', '/api/search-profiles?username=bob')).json, [], 'search by name does not find him for her');
    const profile = await asCarol('GET', `/api/view-user-posts?username=${encodeURIComponent(bobThere)}`);
    t.equal(profile.status, 200, 'his profile stays reachable by link');
    t.same(captions(profile.json.posts), ['over there #seaside'], 'with his post');
    const exact = await asCarol('GET', `/api/search-profiles?username=${encodeURIComponent(`${b.origin}/users/${bob.id}`)}`);
    t.same(exact.json.map((m: { username: string }) => m.username), [bobThere], 'asked for by his address, he is found');

    // Alice follows him: nothing changes for her.
    t.ok(captions((await asAlice('GET', '/api/discover-posts')).json).includes('over there #seaside'), 'in her Discover');
    t.ok(captions((await asAlice('GET', '/api/followFeed')).json).includes('over there #seaside'), 'in her Following feed');
    t.equal(((await asAlice('GET', '/api/hashtags/seaside')).json as Post[]).length, 1, 'on the tag page for her');
    t.same((await asAlice('GET', '/api/search-profiles?username=bob')).json.map((m: { username: string }) => m.username), [bobThere], 'she finds him');

    // His like and comment on Carol's post (she does not follow him) notify nobody; on Alice's (she does), they do.
    const carolUnreadBefore = (await asCarol('GET', '/api/notifications/unread')).json.unread as number;
    await createPost(a.app, carol.token, { s3Key: await upload(a.app, carol.token, await makeJpeg(320, 240)), caption: 'carol here' });
    let carolsThere = 0;
    await eventually("Carol's post reaches Bob", async () => {
      carolsThere = ((await asBob('GET', '/api/followFeed')).json as Post[]).find((p) => p.caption === 'carol here')?.postid ?? 0;
      return carolsThere > 0;
    });
    await asBob('POST', '/api/like', { postId: carolsThere });
    await asBob('POST', '/api/comment', { postId: carolsThere, comment: 'hello' });
    const carolsHere = ((await asCarol('GET', '/api/user-posts')).json.posts as Post[])[0]!.postid;
    await eventually('his like and comment arrive', async () =>
      (await asCarol('GET', `/api/like?postId=${carolsHere}`)).json.likeCount === 1 &&
      ((await asCarol('GET', `/api/comment?postId=${carolsHere}`)).json as unknown[]).length === 1);
    t.equal((await asCarol('GET', '/api/notifications/unread')).json.unread, carolUnreadBefore, 'her bell does not move');
    t.notOk(JSON.stringify((await asCarol('GET', '/api/notifications')).json).includes('liked'), 'no like on her Notifications screen');
    t.equal(
      sqlite.prepare('SELECT count(*) FROM likes WHERE recipient_id IS NOT NULL').pluck().get(),
      0,
      'the like is kept (its count shows) but notifies nobody',
    );

    await createPost(a.app, alice.token, { s3Key: await upload(a.app, alice.token, await makeJpeg(320, 240)), caption: 'alice here' });
    let alicesThere = 0;
    await eventually("Alice's post reaches Bob", async () => {
      alicesThere = ((await asBob('GET', '/api/followFeed')).json as Post[]).find((p) => p.caption === 'alice here')?.postid ?? 0;
      return alicesThere > 0;
    });
    const aliceUnreadBefore = (await asAlice('GET', '/api/notifications/unread')).json.unread as number;
    await asBob('POST', '/api/like', { postId: alicesThere });
    await eventually('Alice, who follows him, is told of his like', async () =>
      (await asAlice('GET', '/api/notifications/unread')).json.unread === aliceUnreadBefore + 1);

    // His new follow of Carol (he unfollows, then follows her again) is counted, and notifies nobody.
    const carolThere = `carol@${a.host}`;
    t.equal((await asBob('DELETE', `/api/account/${encodeURIComponent(carolThere)}/follow`)).status, 200);
    await eventually('his unfollow arrives', async () => (await asCarol('GET', '/api/account/carol/followers')).json.length === 0);
    const carolUnreadThen = (await asCarol('GET', '/api/notifications/unread')).json.unread as number;
    t.equal((await asBob('POST', `/api/account/${encodeURIComponent(carolThere)}/follow`)).status, 200);
    await eventually('his follow arrives', async () => (await asCarol('GET', '/api/account/carol/followers')).json.length === 1);
    t.equal((await asCarol('GET', '/api/notifications/unread')).json.unread, carolUnreadThen, 'her bell does not move for his follow');
    t.notOk(JSON.stringify((await asCarol('GET', '/api/notifications')).json).includes(bobThere), 'nothing of his on her Notifications screen');
    t.equal((await asCarol('GET', '/api/view-user-posts?username=carol')).json.followerCount, 1, 'he counts as her follower');
    await eventually("Carol's post is in his Following feed again (backfill)", async () =>
      captions((await asBob('GET', '/api/followFeed')).json).includes('carol here'));

    // Lifted: he is listed for everyone again.
    t.equal((await asOlga('DELETE', `/api/admin/federation/blocks/${encodeURIComponent(b.host)}`)).status, 200);
    t.equal(limitedFlag(), 0, 'no longer limited');
    t.ok(captions((await asCarol('GET', '/api/discover-posts')).json).includes('over there #seaside'), 'back on her Discover');
    t.equal((await asCarol('GET', '/api/search-profiles?username=bob')).json.length, 1, 'found by name again');

    // A report of his post (another server's) reaches the operator as a local one does (issue 50, item 1).
    const his = ((await asCarol('GET', '/api/discover-posts')).json as Post[]).find((p) => p.caption === 'over there #seaside')!;
    t.equal((await asCarol('POST', '/api/reports', { kind: 'post', id: his.postid, reason: 'spam', note: 'ads' })).status, 201);
    const reports = JSON.stringify((await asOlga('GET', '/api/admin/overview')).json.reports);
    t.ok(reports.includes('over there #seaside') && reports.includes(bobThere), 'the operator sees the report of his post, with his name@host');
  });

  t.test('allow-list mode: only listed servers federate, in and out', async (t) => {
    const asCarolAdmin = await asCarol('PUT', '/api/admin/federation/allow-list', { enabled: true });
    t.equal(asCarolAdmin.status, 403, 'members cannot switch it');
    t.equal((await asOlga('PUT', '/api/admin/federation/allows', { domain: '*.wild.example' })).status, 400, 'a wildcard: 400');
    t.equal((await asOlga('PUT', '/api/admin/federation/allows', { domain: 'x.example', comment: 'x'.repeat(1001) })).status, 400, 'a long reason: 400');
    t.equal((await asOlga('PUT', '/api/admin/federation/allows', { domain: 'x.example', extra: 1 })).status, 400, 'an unknown field: 400');
    t.equal((await asOlga('DELETE', '/api/admin/federation/allows/nowhere.example')).status, 404, 'taking off what is not listed: 404');
    t.same((await asOlga('GET', '/api/admin/federation/allows')).json, { enabled: false, allows: [] }, 'nothing changed');

    const on = await asOlga('PUT', '/api/admin/federation/allow-list', { enabled: true });
    t.same(on.json, { enabled: true, allows: [] });
    const listed = await asOlga('PUT', '/api/admin/federation/allows', { domain: 'https://Friends.Example/about', comment: 'our friends' });
    t.same(listed.json, { enabled: true, allows: [{ domain: 'friends.example', comment: 'our friends' }] });

    // Out: Alice's new post is not queued for Bob's server, which is not listed.
    await createPost(a.app, alice.token, { s3Key: await upload(a.app, alice.token, await makeJpeg(320, 240)), caption: 'while allow-listed' });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    t.equal(sqlite.prepare('SELECT count(*) FROM federation_queue').pluck().get(), 0, 'nothing waits for his server');
    // In: Bob takes back his like on Carol's post and likes it again; her server answers 403.
    const carolsThere = ((await asBob('GET', '/api/followFeed')).json as Post[]).find((p) => p.caption === 'carol here')!.postid;
    const carolsHere = ((await asCarol('GET', '/api/user-posts')).json.posts as Post[]).find((p) => p.caption === 'carol here')!.postid;
    await asBob('DELETE', `/api/like?postId=${carolsThere}`);
    await eventually("his server gives up on the undo: 403", async () =>
      b.app.database.sqlite.prepare('SELECT count(*) FROM federation_delivery_failures WHERE status = 403').pluck().get() as number > 0);
    t.equal((await asCarol('GET', `/api/like?postId=${carolsHere}`)).json.likeCount, 1, 'his undo did not get in');
    // Lookups: a search does not reach his server.
    t.same(
      (await asCarol('GET', `/api/search-profiles?username=${encodeURIComponent(`${b.origin}/users/${bob.id}`)}`)).json.map((m: { username: string }) => m.username),
      [],
      'his address is not looked up',
    );

    // Listed: his like comes in again.
    t.equal((await asOlga('PUT', '/api/admin/federation/allows', { domain: b.host })).status, 200);
    await asBob('POST', '/api/like', { postId: carolsThere });
    await asBob('DELETE', `/api/like?postId=${carolsThere}`);
    await eventually('his undo gets in once his server is listed', async () => (await asCarol('GET', `/api/like?postId=${carolsHere}`)).json.likeCount === 0);

    // Off: every server federates again; each change is in the moderation log.
    t.equal((await asOlga('DELETE', '/api/admin/federation/allows/friends.example')).json.allows.length, 1);
    t.equal((await asOlga('PUT', '/api/admin/federation/allow-list', { enabled: false })).json.enabled, false);
    const log = sqlite
      .prepare("SELECT action, target FROM moderation_actions WHERE action IN ('allow_server', 'disallow_server', 'change_allow_list') ORDER BY id")
      .all();
    t.same(log, [
      { action: 'change_allow_list', target: 'on' },
      { action: 'allow_server', target: 'friends.example' },
      { action: 'allow_server', target: b.host },
      { action: 'disallow_server', target: 'friends.example' },
      { action: 'change_allow_list', target: 'off' },
    ]);
  });

  // Issue 50, item 1: a report of another server's post forwarded there as Mastodon's Flag, and
  // Flags taken in as reports from "a person on <host>" (federation/flags.ts).
  t.test('reports forwarded as a Flag, and Flags taken in', async (t) => {
    const dora = await a.createUser('dora'); // B never hears of her: her name must not reach it
    const asDora = client(a.app, dora.token);
    const olgaThere = await b.createUser('olga');
    const asOlgaThere = client(b.app, olgaThere.token);
    const bSqlite = b.app.database.sqlite;
    // Every inbox POST B's server gets, as it came.
    const fed = b.app.federation!.federation;
    const fedifyFetch = fed.fetch.bind(fed);
    const inbound: Array<{ path: string; body: string }> = [];
    fed.fetch = (async (request: Request, options: never) => {
      if (request.method === 'POST') inbound.push({ path: new URL(request.url).pathname, body: await request.clone().text() });
      return fedifyFetch(request, options);
    }) as typeof fed.fetch;
    t.teardown(() => {
      fed.fetch = fedifyFetch;
    });
    const flagsIn = () => inbound.filter((x) => (JSON.parse(x.body) as { type?: string }).type === 'Flag');
    // Nothing due in either queue (a retry of the allow-list case above may wait for later).
    const queuesEmpty = async () =>
      [sqlite, bSqlite].every((db) => db.prepare('SELECT count(*) FROM federation_queue WHERE run_at <= ?').pluck().get(Date.now()) === 0);

    const his = ((await asCarol('GET', '/api/discover-posts')).json as Post[]).find((p) => p.caption === 'over there #seaside')!;
    t.equal((await asDora('POST', '/api/reports', { kind: 'post', id: his.postid, reason: 'spam', note: 'dora says: casino ads' })).status, 201);
    const forward = (kind: string, id: number, comment: string) => asOlga('POST', `/api/admin/reports/${kind}/${id}/forward`, { comment });

    // Refused: a member; a report of our own person's post; a server that may not federate; bad input.
    t.equal((await asDora('POST', `/api/admin/reports/post/${his.postid}/forward`, { comment: 'x' })).status, 403, 'a member may not forward');
    const alices = ((await asAlice('GET', '/api/user-posts')).json.posts as Post[]).find((p) => p.caption === 'alice here')!;
    t.equal((await asDora('POST', '/api/reports', { kind: 'post', id: alices.postid, reason: 'other', note: '' })).status, 201);
    const local = await forward('post', alices.postid, 'ours');
    t.equal(local.status, 400, 'a report of a person of this server: 400');
    t.equal(local.json.error, 'not_remote');
    t.match(local.json.message, /alice, a person on this server/);
    t.equal((await forward('post', 999_999, 'x')).status, 404, 'an item that does not exist: 404');
    t.equal((await asOlga('POST', `/api/admin/reports/post/${his.postid}/forward`, { comment: 'x', extra: 1 })).status, 400, 'an unknown field: 400');
    t.equal((await forward('post', his.postid, 'x'.repeat(501))).status, 400, 'a comment over 500 characters: 400');
    await asOlga('DELETE', `/api/admin/federation/allows/${encodeURIComponent(b.host)}`);
    await asOlga('PUT', '/api/admin/federation/allow-list', { enabled: true });
    const refused = await forward('post', his.postid, 'x');
    t.equal(refused.status, 409, 'to a server off the allow list: 409');
    t.match(refused.json.message, /may not federate/);
    await asOlga('PUT', '/api/admin/federation/allow-list', { enabled: false });
    t.equal(sqlite.prepare('SELECT count(*) FROM reports WHERE forwarded_to IS NOT NULL').pluck().get(), 0, 'no refusal recorded a forward');
    t.equal(sqlite.prepare("SELECT count(*) FROM moderation_actions WHERE action = 'forward_report'").pluck().get(), 0, 'nor logged one');

    // Forwarded once: recorded on both open reports (Carol's and Dora's), logged, and queued for B.
    const sent = await forward('post', his.postid, 'Casino ads, reported by two people here');
    t.same(sent.json, { forwardedTo: b.host }, 'forwarded to his server');
    const again = await forward('post', his.postid, 'once more');
    t.equal(again.status, 409, 'forwarding it again: 409');
    t.equal(again.json.error, 'already_forwarded');
    const ours = ((await asOlga('GET', '/api/admin/overview')).json.reports as Array<{ itemId: number; authorHost: string | null; forwarded: { host: string } | null; reporterCount: number }>).find(
      (r) => r.itemId === his.postid,
    )!;
    t.equal(ours.authorHost, b.host, 'the page knows where it may be forwarded');
    t.equal(ours.forwarded?.host, b.host, 'and shows it was');
    t.equal(ours.reporterCount, 2);
    t.same(
      sqlite.prepare("SELECT target, reason FROM moderation_actions WHERE action = 'forward_report'").all(),
      [{ target: `2 reports on post ${his.postid} by ${bobThere}, to ${b.host}`, reason: 'Casino ads, reported by two people here' }],
      'one line in the moderation log',
    );

    // B takes it as a report from "a person on <A>", with the operator's words and nobody's name.
    const bobs = ((await asBob('GET', '/api/user-posts')).json.posts as Post[]).find((p) => p.caption === 'over there #seaside')!;
    type Report = { kind: string; itemId: number; author: string; reasons: Array<{ reason: string; note: string; fromHost: string | null }> };
    const reportsThere = async () => (await asOlgaThere('GET', '/api/admin/overview')).json.reports as Report[];
    await eventually('the Flag reaches B as a report', async () => (await reportsThere()).some((r) => r.itemId === bobs.postid));
    const there = (await reportsThere()).find((r) => r.itemId === bobs.postid)!;
    t.same(there.reasons.map((r) => ({ reason: r.reason, note: r.note, fromHost: r.fromHost })), [
      { reason: 'other', note: 'Casino ads, reported by two people here', fromHost: a.host },
    ]);
    t.equal(there.author, 'bob');
    await eventually('nothing is due in the queues', queuesEmpty);
    const flags = flagsIn();
    t.equal(flags.length, 1, 'one Flag was sent, though forwarding was asked twice');
    t.equal(flags[0]!.path, '/inbox', "to his server's shared inbox");
    const flag = JSON.parse(flags[0]!.body) as { actor: string; object: string[]; content: string };
    t.equal(flag.actor, `${a.origin}/actor`, "by A's instance actor, not by a person");
    t.same(flag.object, [`${b.origin}/users/${bob.id}`, `${b.origin}/users/${bob.id}/posts/${bobs.postid}`], 'naming him and his post');
    t.equal(flag.content, 'Casino ads, reported by two people here');
    t.notOk(/dora|carol|casino ads"|dora says/i.test(flags[0]!.body), "no reporter's name or note in the activity");
    const dump = JSON.stringify(
      (bSqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]).map((table) => bSqlite.prepare(`SELECT * FROM "${table}"`).raw().all()),
    );
    t.notOk(/dora/i.test(dump), "B's database holds no reporter's name, nor their note");
    t.same(bSqlite.prepare('SELECT reporter_id AS reporterId, reporter_host AS reporterHost FROM reports').all(), [{ reporterId: null, reporterHost: a.host }]);

    // Flags sent straight from A's instance actor: one naming nothing of B's, then a flood about Bob's comment.
    const ctx = a.app.federation!.federation.createContext(new URL(a.origin), undefined);
    const bInstance = { id: new URL(`${b.origin}/actor`), inboxId: new URL(`${b.origin}/inbox`), endpoints: null };
    const actor = ctx.getActorUri('instance');
    const bobsComment = bSqlite.prepare("SELECT id FROM comments WHERE user_id = ? AND content = 'hello'").pluck().get(bob.id) as number;
    const send = (n: string, objects: string[]) =>
      ctx.sendActivity({ identifier: 'instance' }, bInstance, new Flag({ id: new URL(`${actor.href}#test-flags/${n}`), actor, objects: objects.map((o) => new URL(o)), content: `flag ${n}` }));
    await send('not-ours', [`${a.origin}/users/${alice.id}/posts/${alices.postid}`, `${b.origin}/users/${bob.id}/posts/999999`, `${b.origin}/users/${bob.id}`, `${b.origin}/users/${olgaThere.id}/posts/${bobs.postid}`]);
    for (let i = 0; i < 5; i++) await send(`flood-${i}`, [`${b.origin}/users/${bob.id}`, `${b.origin}/users/${bob.id}/comments/${bobsComment}`]);
    await eventually('the six Flags reach B and are handled', async () => flagsIn().length === 7 && (await queuesEmpty()));
    t.same(
      bSqlite.prepare('SELECT post_id AS postId, comment_id AS commentId, reporter_host AS host, note FROM reports ORDER BY id').all(),
      [
        { postId: bobs.postid, commentId: null, host: a.host, note: 'Casino ads, reported by two people here' },
        { postId: bSqlite.prepare('SELECT post_id FROM comments WHERE id = ?').pluck().get(bobsComment), commentId: bobsComment, host: a.host, note: 'flag flood-0' },
      ],
      'nothing for the Flag naming nothing of ours; one report for five Flags about his comment',
    );
    const comment = (await reportsThere()).find((r) => r.kind === 'comment')!;
    t.equal(comment.reasons.length, 1, 'the page lists it once');
    t.equal(comment.reasons[0]!.fromHost, a.host);

    // B's operator closes the report of his post, then blocks A with "reject reports": A's next Flag
    // about it is not heard; lifted, the same Flag is a report again.
    t.equal((await asOlgaThere('POST', `/api/admin/reports/post/${bobs.postid}/dismiss`, {})).status, 200);
    t.equal((await asOlgaThere('PUT', '/api/admin/federation/blocks', { domain: a.host, severity: 'noop', rejectReports: true })).status, 200);
    const openThere = () => bSqlite.prepare('SELECT count(*) FROM reports WHERE resolved_at IS NULL AND comment_id IS NULL').pluck().get();
    const bobsPost = `${b.origin}/users/${bob.id}/posts/${bobs.postid}`;
    await send('rejected', [bobsPost]);
    await eventually('the Flag reaches B and is handled', async () => flagsIn().length === 8 && (await queuesEmpty()));
    t.equal(openThere(), 0, 'from a server whose reports are rejected: no report');
    t.equal((await asOlgaThere('DELETE', `/api/admin/federation/blocks/${encodeURIComponent(a.host)}`)).status, 200);
    await send('heard', [bobsPost]);
    await eventually('once lifted, the Flag is a report again', async () => openThere() === 1);
  });
});
