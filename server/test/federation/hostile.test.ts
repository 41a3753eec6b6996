import t, { type Test } from 'tap';
import { client } from '../api/factories.js';
import { buildTestApp } from '../helpers.js';
import { createPost, makeJpeg, upload } from '../media/upload-helpers.js';
import { startHostilePeer, type Answer, type HostilePeer } from './hostile-peer.js';
import { eventually, freePort } from './peer.js';

/**
 * Issue 50, "A hostile peer in the tests" (items 3 and 7): one of our servers, a scripted hostile
 * server (hostile-peer.ts: mallory, eve, and an "alice" of its own), a well-behaved one (gus) and a
 * flooding one (flo), all on loopback. Each incoming case: the expected 4xx with a JSON error,
 * nothing changed in the database, and gus's next delivery taken and applied right after. Then
 * every federation endpoint, fetched as another server would, leaks nothing local.
 */

const AS = 'https://www.w3.org/ns/activitystreams';
const PUBLIC = `${AS}#Public`;
/** The inbox limit for this file: the flood passes it; the others' deliveries here stay far below it. */
const PER_MINUTE = 40;

t.test('a hostile peer gets nothing in, and nothing local leaks out', async (t) => {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const hostile = await startHostilePeer(t, ['mallory', 'eve', 'alice']);
  const good = await startHostilePeer(t, ['gus']);
  const flood = await startHostilePeer(t, ['flo']);
  const { app, createUser } = await buildTestApp(t, {
    FEDERATION: 'on',
    PUBLIC_URL: origin,
    FEDERATION_ALLOWED_PRIVATE_HOSTS: [hostile.host, good.host, flood.host].join(','),
    FEDERATION_INBOX_PER_MINUTE: String(PER_MINUTE),
  });
  await app.listen({ port, host: '127.0.0.1' });
  const sqlite = app.database.sqlite;
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const asAlice = client(app, alice.token);
  const sharedInbox = `${origin}/inbox`;
  const bobInbox = `${origin}/users/${bob.id}/inbox`;
  const ourActor = (id: number) => `${origin}/users/${id}`;
  const made = await createPost(app, alice.token, { s3Key: await upload(app, alice.token, await makeJpeg(320, 240)), caption: 'at the lake' });
  const post = made.json().postid as number;
  const postUri = `${origin}/users/${alice.id}/posts/${post}`;

  let n = 0;
  const activity = (peer: HostilePeer, name: string, type: string, object: unknown, extra: Record<string, unknown> = {}) => ({
    '@context': AS,
    id: `${peer.actorOf(name)}/activities/${++n}`,
    type,
    actor: peer.actorOf(name),
    object,
    ...extra,
  });
  const userIdOf = (username: string) => sqlite.prepare('SELECT id FROM users WHERE username = ?').pluck().get(username) as number | undefined;
  const likedBy = (userId: number | undefined) =>
    userId !== undefined && sqlite.prepare('SELECT count(*) FROM likes WHERE post_id = ? AND user_id = ?').pluck().get(post, userId) === 1;

  // gus (the well-behaved server) follows Bob, so his likes count here.
  t.equal((await good.post(bobInbox, activity(good, 'gus', 'Follow', ourActor(bob.id)))).status, 202);
  await eventually('gus is known here', () => userIdOf(`gus@${good.host}`) !== undefined);
  const gusId = userIdOf(`gus@${good.host}`)!;

  // Alice follows mallory, whose server answers with an Accept: a Create of hers is kept from now on.
  const found = await asAlice('GET', `/api/search-profiles?username=${encodeURIComponent(hostile.actorOf('mallory'))}`);
  t.equal(found.json[0]?.username, `mallory@${hostile.host}`, 'mallory is found');
  t.equal((await asAlice('POST', `/api/account/${encodeURIComponent(`mallory@${hostile.host}`)}/follow`)).status, 200);
  await eventually('our Follow reaches mallory', () => hostile.received.some((r) => r.json.type === 'Follow'));
  const follow = hostile.received.find((r) => r.json.type === 'Follow')!.json;
  t.equal((await hostile.post(sharedInbox, activity(hostile, 'mallory', 'Accept', follow))).status, 202);
  await eventually('Alice follows mallory', async () =>
    (await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(`mallory@${hostile.host}`)}`)).json.isFollowing === true);
  const malloryId = userIdOf(`mallory@${hostile.host}`)!;

  const photo = await makeJpeg(64, 48);
  const note = (peer: HostilePeer, name: string, id: string, extra: Record<string, unknown> = {}) => {
    hostile.images.set(`/media/${n}.jpg`, photo);
    return {
      id,
      type: 'Note',
      attributedTo: peer.actorOf(name),
      content: `<p>note ${id}</p>`,
      to: [PUBLIC],
      attachment: [{ type: 'Document', mediaType: 'image/jpeg', url: `${hostile.origin}/media/${n}.jpg`, name: '' }],
      ...extra,
    };
  };
  // A positive control: mallory's own post, correctly signed, is kept (so the refusals below are not vacuous).
  const malloryNote = `${hostile.actorOf('mallory')}/notes/1`;
  t.equal((await hostile.post(sharedInbox, activity(hostile, 'mallory', 'Create', note(hostile, 'mallory', malloryNote), { to: [PUBLIC] }))).status, 202);
  await eventually("mallory's post is kept", () => sqlite.prepare('SELECT count(*) FROM remote_posts WHERE uri = ?').pluck().get(malloryNote) === 1);

  const counts = () =>
    sqlite
      .prepare(
        `SELECT (SELECT count(*) FROM posts) AS posts, (SELECT count(*) FROM likes WHERE user_id <> @gus) AS likes,
                (SELECT count(*) FROM comments) AS comments, (SELECT count(*) FROM follows) AS follows,
                (SELECT count(*) FROM follow_requests) AS requests, (SELECT count(*) FROM users) AS users,
                (SELECT count(*) FROM users WHERE deleted_at IS NULL) AS present, (SELECT count(*) FROM remote_actors) AS actors,
                (SELECT group_concat(username || ':' || coalesce(host, ''), ',') FROM users) AS names`,
      )
      .get({ gus: gusId });

  /** gus's next delivery: a like of Alice's post, or its Undo; taken (202) and applied. */
  let gusLike: Record<string, unknown> | null = null;
  const gusGetsIn = async (t: Test, after: string) => {
    const sending = gusLike ? activity(good, 'gus', 'Undo', gusLike) : activity(good, 'gus', 'Like', postUri);
    const res = await good.post(sharedInbox, sending);
    t.equal(res.status, 202, `after ${after}, another server's delivery is taken`);
    gusLike = gusLike ? null : sending;
    await eventually(`gus's ${sending.type} is applied`, () => likedBy(gusId) === (gusLike !== null));
  };

  /** A case: the expected status, a JSON error, gus still gets in, and nothing changed. */
  const refused = async (t: Test, what: string, status: number | '4xx', send: () => Promise<Answer>) => {
    const before = counts();
    const res = await send();
    if (status === '4xx') t.ok(res.status >= 400 && res.status < 500, `${what}: ${res.status}, a 4xx`);
    else t.equal(res.status, status, `${what}: ${status}`);
    t.match(res.json, { error: String, message: String }, `${what}: a JSON error (${res.text.slice(0, 120)})`);
    await gusGetsIn(t, what);
    t.same(counts(), before, `${what}: nothing changed`);
  };

  t.test('badly signed, unsigned, altered and replayed deliveries', async (t) => {
    await refused(t, 'an unsigned Like', 401, () => hostile.post(sharedInbox, activity(hostile, 'mallory', 'Like', postUri), { unsigned: true }));
    await refused(t, 'a Like signed by a key that is not mallory’s', 401, () =>
      hostile.post(sharedInbox, activity(hostile, 'mallory', 'Like', postUri), { key: 'stranger' }));
    await refused(t, 'a body altered after signing (Digest mismatch)', 401, () =>
      hostile.post(sharedInbox, activity(hostile, 'mallory', 'Like', postUri), {
        alteredBody: JSON.stringify(activity(hostile, 'mallory', 'Like', postUri)),
      }));
    await refused(t, 'a Like signed two hours ago', 401, () =>
      hostile.post(sharedInbox, activity(hostile, 'mallory', 'Like', postUri), { at: new Date(Date.now() - 2 * 3600_000) }));
    await refused(t, 'a Like signed two hours ahead', 401, () =>
      hostile.post(sharedInbox, activity(hostile, 'mallory', 'Like', postUri), { at: new Date(Date.now() + 2 * 3600_000) }));

    // The same valid request twice: the Like, its Undo, then the Like's request again, byte for byte.
    const like = activity(hostile, 'mallory', 'Like', postUri);
    const request = await hostile.prepare(sharedInbox, like);
    t.equal((await hostile.send(request)).status, 202, 'a Like of mallory’s is taken');
    await eventually('mallory likes the post', () => likedBy(malloryId));
    t.equal((await hostile.post(sharedInbox, activity(hostile, 'mallory', 'Undo', like))).status, 202, 'and her Undo');
    await eventually('mallory no longer likes it', () => !likedBy(malloryId));
    const before = counts();
    const replay = await hostile.send(request);
    t.ok(replay.status < 500, `the replayed request is answered ${replay.status}, no 5xx`);
    await gusGetsIn(t, 'a replay');
    t.notOk(likedBy(malloryId), 'the replayed Like changes nothing: it is known by its id');
    t.same(counts(), before, 'a replay: nothing changed');
  });

  t.test('activities about what is not the sender’s', async (t) => {
    await refused(t, 'a Create of a Note on another host', 403, () =>
      hostile.post(sharedInbox, activity(hostile, 'mallory', 'Create', note(hostile, 'mallory', `${good.origin}/notes/${n}`))));
    await refused(t, 'a Create of a Note attributed to someone else', 403, () =>
      hostile.post(sharedInbox, activity(hostile, 'mallory', 'Create', note(hostile, 'eve', `${hostile.actorOf('mallory')}/notes/${n + 1}`))));
    const edit = note(hostile, 'mallory', malloryNote, { content: '<p>defaced</p>' });
    await refused(t, 'an Update of mallory’s post by eve', 403, () => hostile.post(sharedInbox, activity(hostile, 'eve', 'Update', edit), { as: 'eve' }));
    await refused(t, 'a Delete of mallory’s post by eve', 403, () =>
      hostile.post(sharedInbox, activity(hostile, 'eve', 'Delete', { id: malloryNote, type: 'Tombstone' }), { as: 'eve' }));
    await refused(t, 'a Delete of mallory’s post by another server’s person', 403, () =>
      good.post(sharedInbox, activity(good, 'gus', 'Delete', malloryNote), { as: 'gus' }));
    await refused(t, 'a Delete of Alice’s post from another server', 403, () => hostile.post(sharedInbox, activity(hostile, 'mallory', 'Delete', postUri)));
    await refused(t, 'a Like whose actor is not its signer', 401, () => hostile.post(sharedInbox, activity(good, 'gus', 'Like', postUri)));
    await refused(t, 'a Follow whose actor is not its signer', 401, () => hostile.post(bobInbox, activity(good, 'gus', 'Follow', ourActor(bob.id))));
    t.equal(sqlite.prepare('SELECT count(*) FROM posts WHERE id = (SELECT post_id FROM remote_posts WHERE uri = ?)').pluck().get(malloryNote), 1, 'mallory’s post is still here');
  });

  t.test('a key document that names someone else its owner speaks for no one', async (t) => {
    // Its signature holds (the key is the peer's own), but the owner it names lives elsewhere.
    hostile.forgedOwner = good.actorOf('gus');
    await refused(t, 'a Delete of gus (another server’s person) by a key claiming him', 401, () =>
      hostile.post(sharedInbox, activity(good, 'gus', 'Delete', good.actorOf('gus')), { keyId: hostile.forgedKeyId }));
    t.equal(sqlite.prepare('SELECT deleted_at FROM users WHERE id = ?').pluck().get(gusId), null, 'gus is still here');
    hostile.forgedOwner = ourActor(alice.id);
    await refused(t, 'a Follow as our Alice by a key claiming her', 401, () =>
      hostile.post(bobInbox, { ...activity(hostile, 'mallory', 'Follow', ourActor(bob.id)), actor: ourActor(alice.id) }, { keyId: hostile.forgedKeyId }));
    await refused(t, 'a Like as our Alice signed by mallory', 401, () =>
      hostile.post(sharedInbox, { ...activity(hostile, 'mallory', 'Like', postUri), actor: ourActor(alice.id) }));

    // Forwarded: mallory's Like, signed by her server within (a Linked Data Signature), delivered
    // by gus's server under its own HTTP signature. Only her signature vouches for it.
    const signed = (json: Record<string, unknown>) => hostile.ldSign({ ...json, '@context': [AS, 'https://w3id.org/security/v1'] });
    const forwarded = await signed(activity(hostile, 'mallory', 'Like', postUri));
    t.equal((await good.post(sharedInbox, forwarded)).status, 202, 'a Like of mallory’s forwarded by another server, her signature within: taken');
    await eventually('the forwarded like is applied', () => likedBy(malloryId));
    const { signature: _signature, '@context': _context, ...bare } = forwarded;
    const undo = await signed(activity(hostile, 'mallory', 'Undo', bare));
    await refused(t, 'a forwarded Undo altered after its signature', 401, () => good.post(sharedInbox, { ...undo, id: `${undo.id as string}/altered` }));
    t.ok(likedBy(malloryId), 'the like stands');
    t.equal((await hostile.post(sharedInbox, undo)).status, 202, 'her own Undo');
    await eventually('the like is taken back', () => !likedBy(malloryId));

    // A context of its own that makes "actor" mean nothing and another word mean the actor: the
    // check would read mallory, Fedify gus (whom the forged key names).
    hostile.forgedOwner = good.actorOf('gus');
    hostile.documents.set('/ns/renaming', { '@context': { actor: 'https://evil.example/ns#nothing', by: { '@id': `${AS}#actor`, '@type': '@id' } } });
    hostile.documents.set('/ns/plain', { '@context': { mood: 'https://evil.example/ns#mood' } });
    const renaming = { ...activity(hostile, 'mallory', 'Like', postUri), '@context': [AS, `${hostile.origin}/ns/renaming`], by: good.actorOf('gus') };
    await refused(t, 'a Like whose own context renames its actor', 400, () => hostile.post(sharedInbox, renaming, { keyId: hostile.forgedKeyId }));
    t.notOk(likedBy(gusId) !== (gusLike !== null), 'gus’s likes are his own doing only');
    // A context we do not know that renames nothing (as Pleroma's litepub): taken.
    const plain = { ...activity(hostile, 'mallory', 'Like', postUri), '@context': [AS, `${hostile.origin}/ns/plain`], mood: 'cheerful' };
    t.equal((await hostile.post(sharedInbox, plain)).status, 202, 'a context of its own that renames nothing is taken');
    await eventually('that like is applied', () => likedBy(malloryId));
    t.equal((await hostile.post(sharedInbox, activity(hostile, 'mallory', 'Undo', plain))).status, 202);
    await eventually('and taken back', () => !likedBy(malloryId));
  });

  t.test('an actor named as one of ours stays theirs', async (t) => {
    const res = await hostile.post(bobInbox, activity(hostile, 'alice', 'Follow', ourActor(bob.id)), { as: 'alice' });
    t.equal(res.status, 202, 'their "alice" may follow Bob');
    await eventually('their alice follows Bob', async () =>
      ((await client(app, bob.token)('GET', '/api/account/bob/followers')).json as Array<{ username: string }>).some((f) => f.username === `alice@${hostile.host}`));
    t.same(sqlite.prepare('SELECT username, host, deleted_at AS deletedAt FROM users WHERE id = ?').get(alice.id), { username: 'alice', host: null, deletedAt: null }, 'our Alice is untouched');
    const profile = await asAlice('GET', '/api/view-user-posts?username=alice');
    t.equal(profile.json.username, 'alice');
    t.equal(profile.json.posts?.length ?? profile.json.postCount, 1, 'her profile is hers, with her one post');
    t.notOk((await client(app, bob.token)('GET', '/api/account/bob/followers')).json.some((f: { username: string }) => f.username === 'alice'), 'our Alice does not follow Bob');
  });

  t.test('malformed bodies: a 4xx each, never a 5xx', async (t) => {
    const like = activity(hostile, 'mallory', 'Like', postUri);
    const bodies: Array<[string, string | Record<string, unknown>, { unsigned?: boolean }]> = [
      ['not JSON', '{"type":', {}],
      ['an array', '[]', {}],
      ['null', 'null', {}],
      ['an empty object', {}, {}],
      ['no actor', { ...like, actor: undefined }, {}],
      ['a context that is a number', { ...like, '@context': 5 }, {}],
      ['a context nobody serves', { ...like, '@context': [AS, `${hostile.origin}/ns/missing`] }, {}],
      ['a Linked Data Signature that is garbage, unsigned otherwise', { ...like, '@context': [AS, 'https://w3id.org/security/v1'], signature: { type: 'RsaSignature2017', creator: hostile.keyIdOf('mallory'), created: 'yesterday', signatureValue: 'x' } }, { unsigned: true }],
    ];
    for (const [what, body, options] of bodies) await refused(t, what, '4xx', () => hostile.post(sharedInbox, body, options));
  });

  t.test('an oversized body is refused before it is read', async (t) => {
    // Two megabytes of what is not even JSON: a 413, not the 400 a parser would give.
    await refused(t, 'a 2 MB body', 413, () => hostile.post(sharedInbox, `{"type":"Create","junk":"${'a'.repeat(2 * 1024 * 1024)}`, { unsigned: true }));
  });

  t.test("one server's flood is slowed while another still gets in", async (t) => {
    const statuses: number[] = [];
    while (statuses.length < PER_MINUTE + 20 && statuses.at(-1) !== 429) {
      statuses.push((await flood.post(sharedInbox, activity(flood, 'flo', 'Like', postUri), { as: 'flo' })).status);
    }
    t.equal(statuses.at(-1), 429, `flo is slowed after ${statuses.length - 1} activities`);
    t.ok(statuses.slice(0, -1).every((s) => s === 202) && statuses.length - 1 >= PER_MINUTE, 'its burst got in first');
    await refused(t, 'flo’s next activity', 429, () => flood.post(sharedInbox, activity(flood, 'flo', 'Like', postUri), { as: 'flo' }));
  });

  t.test('a rotated key is refetched once; the revoked one is refused', async (t) => {
    await hostile.rotate();
    const fetches = hostile.keyFetches;
    const like = activity(hostile, 'mallory', 'Like', postUri);
    t.equal((await hostile.post(sharedInbox, like, { spec: 'rfc9421' })).status, 202, 'signed (RFC 9421) by the new key: taken');
    await eventually('the like is applied', () => likedBy(malloryId));
    t.equal(hostile.keyFetches, fetches + 1, 'after one refetch of the key');
    await refused(t, 'an Undo signed by the revoked key', 401, () => hostile.post(sharedInbox, activity(hostile, 'mallory', 'Undo', like), { key: 'revoked' }));
    t.ok(likedBy(malloryId), 'the like stands');
  });
  t.test('nothing local leaks to another server', async (t) => {
    const asBob = client(app, bob.token);
    const carol = await createUser('carol');
    const dave = await createUser('dave', 'dave.secret@mail.example');
    await createUser('blockee');
    const reporter = await createUser('reporter');
    t.equal((await client(app, carol.token)('PUT', '/api/account/privacy', { isPrivate: true })).status, 200, 'Carol is private');
    const postBy = async (token: string, caption: string, isAnonymous = false) =>
      (await createPost(app, token, { s3Key: await upload(app, token, await makeJpeg(200, 150)), caption, isAnonymous })).json().postid as number;
    const carolsPost = await postBy(carol.token, 'carol secret caption');
    const anonymous = await postBy(alice.token, 'anonymous caption zq', true);
    const davesPost = await postBy(dave.token, 'dave in public');
    const commentId = async (postId: number, comment: string) => {
      t.equal((await asBob('POST', '/api/comment', { postId, comment })).status, 201);
      return sqlite.prepare('SELECT id FROM comments WHERE post_id = ? AND content = ?').pluck().get(postId, comment) as number;
    };
    const onAlices = await commentId(post, 'nice lake');
    const onAnonymous = await commentId(anonymous, 'who is this');
    t.equal((await asAlice('POST', '/api/account/blockee/block')).status, 200, 'Alice blocks someone');
    t.equal((await client(app, reporter.token)('POST', '/api/reports', { kind: 'post', id: post, reason: 'spam', note: 'report note zq' })).status, 201, 'someone reports her post');

    const host = `127.0.0.1:${port}`;
    const paths = ['/actor', '/.well-known/nodeinfo', '/nodeinfo/2.1', `/.well-known/webfinger?resource=${encodeURIComponent(`${origin}/app/profile/alice`)}`];
    for (const person of [alice, bob, carol, dave]) {
      const at = `/users/${person.id}`;
      paths.push(at, `${at}/outbox`, `${at}/outbox?cursor=newest`, `${at}/followers`, `${at}/following`, `/app/profile/${person.username}`);
      paths.push(`/.well-known/webfinger?resource=${encodeURIComponent(`acct:${person.username}@${host}`)}`);
    }
    paths.push(`/users/${alice.id}/posts/${post}`, `/users/${alice.id}/posts/${anonymous}`, `/users/${carol.id}/posts/${carolsPost}`, `/users/${dave.id}/posts/${davesPost}`);
    paths.push(`/users/${bob.id}/comments/${onAlices}`, `/users/${bob.id}/comments/${onAnonymous}`);

    const secrets = ['@example.test', 'mail.example', 'carol secret caption', 'anonymous caption zq', `/posts/${anonymous}`, 'who is this', 'blockee', 'reporter', 'report note zq'];
    const answered: string[] = [];
    for (const path of paths) {
      for (const unsigned of [false, true]) {
        const accept = path.startsWith('/.well-known/webfinger') ? 'application/jrd+json' : 'application/activity+json';
        const res = await hostile.get(`${origin}${path}`, { unsigned, accept });
        const as = `${path} (${unsigned ? 'unsigned' : 'signed by another server'}: ${res.status})`;
        t.ok(res.status < 500, `${as}: no 5xx`);
        if (res.status === 200) answered.push(path);
        // (A 404 names the path it was asked for: that is not ours to leak.)
        const leaked = secrets.filter((secret) => res.text.includes(secret) && !path.includes(secret));
        t.same(leaked, [], `${as}: nothing local leaks`);
      }
    }
    // The checks above were not vacuous: the public things answered, with what is public.
    for (const path of [`/users/${alice.id}`, `/users/${carol.id}`, `/users/${dave.id}/posts/${davesPost}`, `/users/${bob.id}/comments/${onAlices}`, '/nodeinfo/2.1']) {
      t.ok(answered.includes(path), `${path} answers 200`);
    }
    t.ok((await hostile.get(`${origin}/users/${dave.id}/posts/${davesPost}`)).text.includes('dave in public'), "Dave's public post is served");
    for (const path of [`/users/${alice.id}/posts/${anonymous}`, `/users/${carol.id}/posts/${carolsPost}`, `/users/${bob.id}/comments/${onAnonymous}`]) {
      t.notOk(answered.includes(path), `${path} is not served to a non-follower`);
    }
  });
});
