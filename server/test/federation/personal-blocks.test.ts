import type { webcrypto } from 'node:crypto';
import { signRequest } from '@fedify/fedify';
import { Create, Follow, Like, Note, PUBLIC_COLLECTION } from '@fedify/vocab';
import t from 'tap';
import { client } from '../api/factories.js';
import { createPost, makeJpeg, upload } from '../media/upload-helpers.js';
import { eventually, startPeer } from './peer.js';
import { followAcross, twoServers } from './two-servers.js';

// One pair of servers for every case here (each set-up costs seconds): Alice and the operator Olga
// on A, Bob on B. The cases run in order and each starts from where the one before left off.
// A third server, of Fedify alone, for authorized fetch (below): listed so that A may fetch its keys.
const peer = await startPeer(t);
const { a, b } = await twoServers(t, { ADMIN_USERNAMES: 'olga', FEDERATION_ALLOWED_PRIVATE_HOSTS: peer.host });
const olga = await a.createUser('olga');
const alice = await a.createUser('alice');
const bob = await b.createUser('bob');
const asOlga = client(a.app, olga.token);
const asAlice = client(a.app, alice.token);
const asBob = client(b.app, bob.token);
const bobOnA = `bob@${b.host}`;
const aliceOnB = `alice@${a.host}`;
const sqliteA = a.app.database.sqlite;
const sqliteB = b.app.database.sqlite;
const idOn = (sqlite: typeof sqliteA, username: string) => sqlite.prepare<[string], number>('SELECT id FROM users WHERE username = ?').pluck().get(username)!;
const followsBetween = (sqlite: typeof sqliteA, x: number, y: number) =>
  sqlite.prepare<{ x: number; y: number }, number>(
    `SELECT (SELECT count(*) FROM follows WHERE (follower_id = @x AND followee_id = @y) OR (follower_id = @y AND followee_id = @x))
      + (SELECT count(*) FROM follow_requests WHERE (requester_id = @x AND target_id = @y) OR (requester_id = @y AND target_id = @x))`,
  ).pluck().get({ x, y })!;
const named = (sqlite: typeof sqliteA, blocker: number, blocked: number) =>
  sqlite.prepare<[number, number], number>('SELECT count(*) FROM blocks WHERE blocker_id = ? AND blocked_id = ? AND post_id IS NULL').pluck().get(blocker, blocked)!;
/** Both queues empty: what was sent has arrived and been handled (a listener runs from the queue). */
const settled = () =>
  eventually('both queues are empty', () =>
    [sqliteA, sqliteB].every((s) => s.prepare('SELECT count(*) FROM federation_queue').pluck().get() === 0));

/** A GET of one of A's documents as ActivityPub, signed by `signer`'s key when one is given. */
async function fetchAs(url: string, signer?: { privateKey: webcrypto.CryptoKey; keyId: URL }): Promise<Response> {
  let request = new Request(url, { headers: { accept: 'application/activity+json' } });
  if (signer) request = await signRequest(request, signer.privateKey, signer.keyId);
  return fetch(request);
}
/** A key pair of B's, as Fedify signs with it: Bob's, or the instance actor's. */
async function keyOnB(identifier: string) {
  const ctx = b.app.federation!.federation.createContext(new URL(b.origin), undefined);
  const [pair] = await ctx.getActorKeyPairs(identifier);
  // ActorKeyPair is a CryptoKeyPair (its privateKey), as the DOM's types do not say here.
  return { privateKey: (pair as unknown as webcrypto.CryptoKeyPair).privateKey, keyId: pair!.keyId };
}

let herPost = 0;
let herPostUrl = '';

t.test('Alice blocks Bob of another server: his server is told, the follows end both sides, nothing of his gets in, his fetches are refused; unblock', async (t) => {
  // They follow each other; each sees the other's post.
  await followAcross(a, alice.token, b, bob);
  await followAcross(b, bob.token, a, alice);
  await eventually('both follows are accepted', async () =>
    (await asAlice('GET', '/api/account/alice/followers')).json.length === 1 &&
    (await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(bobOnA)}`)).json.isFollowing === true);
  await createPost(b.app, bob.token, { s3Key: await upload(b.app, bob.token, await makeJpeg(320, 240)), caption: 'from over there' });
  herPost = (await createPost(a.app, alice.token, { s3Key: await upload(a.app, alice.token, await makeJpeg(320, 240)), caption: 'cheers' })).json().postid as number;
  herPostUrl = `${a.origin}/users/${alice.id}/posts/${herPost}`;
  await eventually("each sees the other's post", async () =>
    ((await asBob('GET', '/api/followFeed')).json as Array<{ caption: string }>).some((p) => p.caption === 'cheers') &&
    ((await asAlice('GET', '/api/followFeed')).json as unknown[]).length === 1);
  const bobKey = await keyOnB(String(bob.id));
  t.equal((await fetchAs(herPostUrl, bobKey)).status, 200, 'before the block, his signed fetch of her post is served');

  const bobIdOnA = idOn(sqliteA, bobOnA);
  const aliceIdOnB = idOn(sqliteB, aliceOnB);
  t.equal((await asAlice('POST', `/api/account/${encodeURIComponent(bobOnA)}/block`)).status, 200);
  t.equal(followsBetween(sqliteA, alice.id, bobIdOnA), 0, 'no follow left between them on A');
  t.same((await asAlice('GET', '/api/followFeed')).json, [], 'his post is gone from her Following feed');

  // B takes her Block as Mastodon does: they stop seeing each other there, the follows go.
  await eventually('B has her block of Bob', () => named(sqliteB, aliceIdOnB, bob.id) === 1);
  await settled();
  t.equal(followsBetween(sqliteB, aliceIdOnB, bob.id), 0, 'no follow left between them on B');
  t.notOk(((await asBob('GET', '/api/followFeed')).json as Array<{ caption: string }>).some((p) => p.caption === 'cheers'), 'her post is gone from his feed');
  t.equal((await asBob('GET', `/api/view-user-posts?username=${encodeURIComponent(aliceOnB)}`)).status, 404, 'her profile is gone for him');
  t.equal(sqliteA.prepare('SELECT count(*) FROM federation_delivery_failures').pluck().get(), 0, 'A sent nothing that failed');

  // Whatever Bob's server still sends for him (B itself would no longer: it hides her from him)
  // is taken with 202 and dropped: a like, a comment, a follow, a post mentioning her.
  const ctxB = b.app.federation!.federation.createContext(new URL(b.origin), undefined);
  const bobActor = ctxB.getActorUri(String(bob.id));
  const aliceActor = new URL(`${a.origin}/users/${alice.id}`);
  const to = { id: aliceActor, inboxId: new URL(`${a.origin}/users/${alice.id}/inbox`), endpoints: null };
  const bobSends = async (activity: Like | Create | Follow) => ctxB.sendActivity({ identifier: String(bob.id) }, to, activity);
  await bobSends(new Like({ id: new URL(`${bobActor.href}#likes/late`), actor: bobActor, object: new URL(herPostUrl) }));
  const reply = new Note({
    id: new URL(`${b.origin}/users/${bob.id}/comments/999`),
    attribution: bobActor,
    replyTarget: new URL(herPostUrl),
    content: '<p>@alice still here</p>',
    tos: [PUBLIC_COLLECTION],
  });
  await bobSends(new Create({ id: new URL(`${reply.id!.href}#create`), actor: bobActor, object: reply, tos: [PUBLIC_COLLECTION] }));
  await bobSends(new Follow({ id: new URL(`${bobActor.href}#follows/late`), actor: bobActor, object: aliceActor }));
  await settled();
  t.equal(sqliteB.prepare('SELECT count(*) FROM federation_delivery_failures').pluck().get(), 0, 'each was taken (no error sent back to B)');
  t.equal((await asAlice('GET', `/api/like?postId=${herPost}`)).json.likeCount, 0, 'his like did not count');
  t.same((await asAlice('GET', `/api/comment?postId=${herPost}`)).json, [], 'his comment is not there');
  t.equal(followsBetween(sqliteA, alice.id, bobIdOnA), 0, 'his follow was refused');
  t.same((await asAlice('GET', '/api/notifications/unread')).json, { unread: 0, followRequests: 0 }, 'nothing of his in her bell');

  // His signed fetches of her things are refused; others' still served.
  const refused = await fetchAs(herPostUrl, bobKey);
  t.equal(refused.status, 403, 'his signed fetch of her post: 403');
  t.match(await refused.json(), { error: 'forbidden' });
  t.equal((await fetchAs(`${a.origin}/users/${alice.id}/outbox`, bobKey)).status, 403, 'and of her outbox');
  t.equal((await fetchAs(herPostUrl, await keyOnB('instance'))).status, 200, "B's instance actor still gets it (her post is public)");
  t.equal((await fetchAs(herPostUrl)).status, 200, 'an unsigned fetch too (authorized fetch is off)');

  // Unblocked: B is told (Undo of the Block), and his fetch is served again. No follow comes back.
  const list = (await asAlice('GET', '/api/blocks')).json.blocks as Array<{ blockId: number; username: string }>;
  t.equal(list.length, 1);
  t.equal((await asAlice('DELETE', `/api/blocks/${list[0]!.blockId}`)).status, 200);
  await eventually("B has lifted her block", () => named(sqliteB, aliceIdOnB, bob.id) === 0);
  t.equal((await fetchAs(herPostUrl, bobKey)).status, 200, 'his signed fetch is served again');
  t.equal((await asBob('GET', `/api/view-user-posts?username=${encodeURIComponent(aliceOnB)}`)).status, 200, 'he sees her profile again');
  t.equal(followsBetween(sqliteB, aliceIdOnB, bob.id), 0, 'the follows stay ended');
});

t.test('authorized fetch: objects only to signed requests from servers not suspended; actors stay fetchable', async (t) => {
  const on = await asOlga('PUT', '/api/admin/federation/authorized-fetch', { enabled: true });
  t.equal(on.status, 200);
  t.equal(on.json.authorizedFetch, true);
  t.equal((await asAlice('PUT', '/api/admin/federation/authorized-fetch', { enabled: false })).status, 403, 'members may not switch it');
  t.equal((await asOlga('PUT', '/api/admin/federation/authorized-fetch', { enabled: 'yes' })).status, 400);

  const unsigned = await fetchAs(herPostUrl);
  t.equal(unsigned.status, 401, 'an unsigned GET of a note: 401');
  t.match(await unsigned.json(), { error: 'unauthorized' });
  for (const path of ['outbox', 'followers', 'following']) {
    t.equal((await fetchAs(`${a.origin}/users/${alice.id}/${path}`)).status, 401, `unsigned ${path}: 401`);
  }
  t.equal((await fetchAs(`${a.origin}/users/${alice.id}`)).status, 200, "her actor stays fetchable (keys are verified with it)");
  t.equal((await fetchAs(`${a.origin}/actor`)).status, 200, 'and the instance actor');
  t.equal((await fetchAs(herPostUrl, await keyOnB('instance'))).status, 200, 'signed by B: 200');
  t.equal((await fetchAs(`${a.origin}/users/${alice.id}/outbox`, await keyOnB('instance'))).status, 200, 'her outbox signed by B: 200');

  const [pair] = await peer.ctx.getActorKeyPairs('pat');
  const patKey = { privateKey: (pair as unknown as webcrypto.CryptoKeyPair).privateKey, keyId: pair!.keyId };
  t.equal((await fetchAs(herPostUrl, patKey)).status, 200, 'signed by another server: 200');
  t.equal((await asOlga('PUT', '/api/admin/federation/blocks', { domain: peer.host, severity: 'suspend' })).status, 200);
  t.equal((await fetchAs(herPostUrl, patKey)).status, 403, 'signed by a suspended server: 403');
  t.equal((await fetchAs(herPostUrl, await keyOnB('instance'))).status, 200, 'B is still served');

  const off = await asOlga('PUT', '/api/admin/federation/authorized-fetch', { enabled: false });
  t.equal(off.json.authorizedFetch, false);
  t.equal((await fetchAs(herPostUrl)).status, 200, 'off again: an unsigned GET is served');
  const log = sqliteA.prepare("SELECT target FROM moderation_actions WHERE action = 'change_federation' ORDER BY id").pluck().all();
  t.same(log, ['authorized fetch on', 'authorized fetch off'], 'each change is in the moderation log');
});

t.test("Alice mutes Bob's server: his posts, comments and notifications leave her views only; nothing is sent to B; unmute", async (t) => {
  type FeedPost = { postid: number; caption: string; username: string | null; comments: Array<{ username: string | null; comment?: string }> };
  const captions = (json: unknown) => (json as FeedPost[]).map((p) => p.caption);
  const carol = await a.createUser('carol');
  const asCarol = client(a.app, carol.token);

  // They follow each other again (the block above ended it); Bob posts with a tag; Alice posts, and Bob likes and comments on it.
  await followAcross(a, alice.token, b, bob);
  await followAcross(b, bob.token, a, alice);
  await eventually('both follows are accepted', async () =>
    (await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(bobOnA)}`)).json.isFollowing === true &&
    (await asAlice('GET', '/api/account/alice/followers')).json.length === 1);
  await createPost(b.app, bob.token, { s3Key: await upload(b.app, bob.token, await makeJpeg(320, 240)), caption: 'quiet please #hushhush' });
  const hers = (await createPost(a.app, alice.token, { s3Key: await upload(a.app, alice.token, await makeJpeg(320, 240)), caption: 'mute test' })).json().postid as number;
  let hersOnB = 0;
  await eventually("each has the other's new post", async () => {
    hersOnB = ((await asBob('GET', '/api/followFeed')).json as FeedPost[]).find((p) => p.caption === 'mute test')?.postid ?? 0;
    return hersOnB > 0 && captions((await asAlice('GET', '/api/followFeed')).json).includes('quiet please #hushhush');
  });
  t.equal((await asBob('POST', '/api/comment', { postId: hersOnB, comment: 'from B' })).status, 201);
  t.equal((await asBob('POST', '/api/like', { postId: hersOnB })).status, 201);
  const bobsComment = async (as: typeof asAlice) =>
    ((await as('GET', `/api/comment?postId=${hers}`)).json as Array<{ username: string }>).some((c) => c.username === bobOnA);
  await eventually('his like and comment arrive', async () => (await asAlice('GET', `/api/like?postId=${hers}`)).json.likeCount === 1 && (await bobsComment(asAlice)));
  const bell = async () => (await asAlice('GET', '/api/notifications/unread')).json.unread as number;
  const listsBob = async () => JSON.stringify((await asAlice('GET', '/api/notifications')).json).includes(bobOnA);
  const before = await bell();
  t.ok(before >= 3, `his follow, like and comment ring her bell (${before})`);
  t.ok(await listsBob(), 'and are on her Notifications screen');
  const searchBob = async (as: typeof asAlice) => ((await as('GET', '/api/search-profiles?username=bob')).json as Array<{ username: string }>).map((m) => m.username);
  t.same(await searchBob(asAlice), [bobOnA], 'before the mute, she finds him by name');
  const firstComments = async (as: typeof asAlice) =>
    ((await as('GET', '/api/discover-posts')).json as FeedPost[]).find((p) => p.postid === hers)?.comments.map((c) => c.username) ?? [];
  t.same(await firstComments(asAlice), [bobOnA], "his comment is under her post in Discover's first comments");

  // Anything A would queue for another server while she mutes and unmutes is counted here.
  sqliteA.exec(`CREATE TEMP TABLE queued (n INTEGER);
    CREATE TEMP TRIGGER count_queued AFTER INSERT ON main.federation_queue BEGIN INSERT INTO queued VALUES (1); END;`);
  const queued = () => sqliteA.prepare('SELECT count(*) FROM temp.queued').pluck().get() as number;
  const mutes = async () => (await asAlice('GET', '/api/server-mutes')).json.mutes as Array<{ host: string; created_at: string }>;

  // Bad hosts: 400 (404 for one not muted), a JSON error, and nothing changes.
  for (const host of ['', 'not a host!', '*.example.social', 'https://user:pw@b.example/', a.host, a.origin, `${a.origin}/users/1`]) {
    const res = await asAlice('POST', '/api/server-mutes', { host });
    t.equal(res.status, 400, `muting ${JSON.stringify(host)}: 400`);
    t.type(res.json.error, 'string');
    t.type(res.json.message, 'string');
  }
  t.equal((await asAlice('POST', '/api/server-mutes', { host: b.host, why: 'noisy' })).status, 400, 'an unknown field: 400');
  t.equal((await asAlice('POST', '/api/server-mutes', {})).status, 400, 'no host: 400');
  const notMuted = await asAlice('DELETE', '/api/server-mutes/elsewhere.example');
  t.equal(notMuted.status, 404, 'unmuting a server not muted: 404');
  t.equal(notMuted.json.error, 'not_found');
  t.same(await mutes(), [], 'nothing was muted');
  t.equal(await bell(), before, 'and her bell did not move');

  // The mute: pasted as an address, kept as the host users rows spell it.
  t.equal(queued(), 0);
  const muted = await asAlice('POST', '/api/server-mutes', { host: `HTTP://${b.host.toUpperCase()}/users/${bob.id}` });
  t.equal(muted.status, 200);
  t.same(muted.json, { host: b.host, muted: true });
  t.same((await mutes()).map((m) => m.host), [b.host], 'her list has it');
  t.same((await asAlice('POST', '/api/server-mutes', { host: b.host })).json, { host: b.host, muted: true }, 'muting again changes nothing');
  t.equal((await mutes()).length, 1);
  t.same((await asCarol('GET', '/api/server-mutes')).json, { mutes: [] }, "Carol's list is her own");

  // Gone from her views…
  t.notOk(captions((await asAlice('GET', '/api/discover-posts')).json).includes('quiet please #hushhush'), 'his post leaves her Discover');
  t.notOk(captions((await asAlice('GET', '/api/followFeed')).json).includes('quiet please #hushhush'), 'and her Following feed (she still follows him)');
  t.same((await asAlice('GET', '/api/hashtags/hushhush')).json, [], 'and the tag page');
  t.same(await searchBob(asAlice), [], 'search by name does not find him');
  t.notOk(await bobsComment(asAlice), 'his comment is hidden under her post');
  t.same(await firstComments(asAlice), [], "and from Discover's first comments");
  t.equal(await bell(), before - 3, 'his follow, like and comment leave her bell');
  t.notOk(await listsBob(), 'and her Notifications screen');
  t.equal((await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(bobOnA)}`)).status, 200, 'his profile still opens (to unmute from)');
  // …not from Carol's.
  t.ok(captions((await asCarol('GET', '/api/discover-posts')).json).includes('quiet please #hushhush'), "Carol's Discover still has his post");
  t.equal(((await asCarol('GET', '/api/hashtags/hushhush')).json as FeedPost[]).length, 1, 'and her tag page');
  t.same(await searchBob(asCarol), [bobOnA], 'she finds him');
  t.ok(await bobsComment(asCarol), 'she sees his comment under Alice’s post');
  t.same(await firstComments(asCarol), [bobOnA], "and in Discover's first comments");
  t.equal(queued(), 0, 'the mute queued nothing for B or any server');

  // What he does while she mutes B is kept but rings nothing: a like of her second post.
  const second = (await createPost(a.app, alice.token, { s3Key: await upload(a.app, alice.token, await makeJpeg(320, 240)), caption: 'while muted' })).json().postid as number;
  let secondOnB = 0;
  await eventually('her second post reaches him', async () => {
    secondOnB = ((await asBob('GET', '/api/followFeed')).json as FeedPost[]).find((p) => p.caption === 'while muted')?.postid ?? 0;
    return secondOnB > 0;
  });
  t.equal((await asBob('POST', '/api/like', { postId: secondOnB })).status, 201);
  await eventually('his second like arrives', async () => (await asAlice('GET', `/api/like?postId=${second}`)).json.likeCount === 1);
  t.equal(await bell(), before - 3, 'it does not ring her bell');
  t.notOk(await listsBob(), 'nor list');
  // Her post's Create is queued for B as for any follower (the mute changes nothing of what she sends).
  const queuedWhileMuted = queued();
  t.ok(queuedWhileMuted > 0, `her post was queued for B as before (${queuedWhileMuted} messages)`);

  // Unmuted: everything comes back, the like made meanwhile too.
  const unmuted = await asAlice('DELETE', `/api/server-mutes/${encodeURIComponent(b.host)}`);
  t.equal(unmuted.status, 200);
  t.same(unmuted.json, { host: b.host, muted: false });
  t.same(await mutes(), []);
  t.ok(captions((await asAlice('GET', '/api/discover-posts')).json).includes('quiet please #hushhush'), 'his post is back in her Discover');
  t.ok(captions((await asAlice('GET', '/api/followFeed')).json).includes('quiet please #hushhush'), 'and her Following feed');
  t.equal(((await asAlice('GET', '/api/hashtags/hushhush')).json as FeedPost[]).length, 1, 'and the tag page');
  t.same(await searchBob(asAlice), [bobOnA], 'she finds him again');
  t.ok(await bobsComment(asAlice), 'his comment is back');
  t.equal(await bell(), before + 1, 'her bell counts his follow, like and comment again, and the like made while muted');
  t.ok(await listsBob(), 'and lists them');

  t.equal(queued(), queuedWhileMuted, 'the unmute queued nothing either');
  sqliteA.exec('DROP TRIGGER temp.count_queued; DROP TABLE temp.queued;');
});
