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
});
