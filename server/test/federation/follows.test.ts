import t from 'tap';
import { client } from '../api/factories.js';
import { eventually } from './peer.js';
import { twoServers } from './two-servers.js';

t.test('follows cross between two servers: public at once, private by approval, undone, declined', async (t) => {
  const { a, b } = await twoServers(t);
  const alice = await a.createUser('alice');
  const dave = await a.createUser('dave');
  const bob = await b.createUser('bob');
  const carol = await b.createUser('carol');
  const asAlice = client(a.app, alice.token);
  const asDave = client(a.app, dave.token);
  const asBob = client(b.app, bob.token);
  const asCarol = client(b.app, carol.token);
  t.equal((await asCarol('PUT', '/api/account/privacy', { isPrivate: true })).status, 200);

  // Alice finds Bob by his actor's URL: search answers him as bob@host, first.
  const search = await asAlice('GET', `/api/search-profiles?username=${encodeURIComponent(`${b.origin}/users/${bob.id}`)}`);
  t.equal(search.status, 200);
  const bobThere = `bob@${b.host}`;
  t.equal(search.json[0]?.username, bobThere, 'the remote person is found and named name@host');
  const profile = await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(bobThere)}`);
  t.equal(profile.status, 200, 'their profile opens');
  t.equal(profile.json.username, bobThere);

  // Follow: "Requested" until Bob's server accepts, then following.
  const follow = await asAlice('POST', `/api/account/${encodeURIComponent(bobThere)}/follow`);
  t.equal(follow.status, 200);
  t.match(follow.json, { following: false, requested: true }, 'requested until their server answers');
  const aliceHere = `alice@${a.host}`;
  await eventually('Bob has Alice as a follower', async () =>
    (await asBob('GET', '/api/account/bob/followers')).json.some((f: { username: string }) => f.username === aliceHere));
  await eventually('Alice follows Bob on her server', async () =>
    (await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(bobThere)}`)).json.isFollowing === true);
  t.equal((await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(bobThere)}`)).json.isRequested, false, 'no longer requested');
  const bell = await asBob('GET', '/api/notifications');
  t.ok(
    JSON.stringify(bell.json).includes(aliceHere),
    'Bob is told that alice@host started following him',
  );
  t.equal((await asAlice('GET', '/api/notifications/unread')).json.unread, 0, 'Alice is told nothing: Bob accepts everyone at once');

  // Carol is private: Alice's Follow is a follow request on Carol's side until she approves it.
  t.equal((await asAlice('GET', `/api/search-profiles?username=${encodeURIComponent(`${b.origin}/users/${carol.id}`)}`)).status, 200);
  const carolThere = `carol@${b.host}`;
  t.match((await asAlice('POST', `/api/account/${encodeURIComponent(carolThere)}/follow`)).json, { requested: true });
  await eventually('Carol sees the request', async () =>
    (await asCarol('GET', '/api/follow-requests')).json.some((r: { username: string }) => r.username === aliceHere));
  t.equal((await asCarol('GET', '/api/notifications/unread')).json.followRequests, 1, 'in her bell');
  t.equal((await asCarol('GET', '/api/account/carol/followers')).json.length, 0, 'not a follower yet');
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal((await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(carolThere)}`)).json.isFollowing, false, 'still only requested');
  t.equal((await asCarol('POST', `/api/follow-requests/${encodeURIComponent(aliceHere)}/approve`)).status, 200);
  await eventually('Alice follows Carol once approved', async () =>
    (await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(carolThere)}`)).json.isFollowing === true);
  const accepted = await asAlice('GET', '/api/notifications');
  t.ok(JSON.stringify(accepted.json).includes(carolThere), 'Alice is told carol@host accepted her follow request');

  // Dave asks Carol too, finding her by the address of her page in the app; she declines, and
  // Dave's request goes on his server.
  const byPage = await asDave('GET', `/api/search-profiles?username=${encodeURIComponent(`${b.origin}/app/profile/carol`)}`);
  t.equal(byPage.json[0]?.username, carolThere, 'found by her profile page\'s address');
  t.match((await asDave('POST', `/api/account/${encodeURIComponent(carolThere)}/follow`)).json, { requested: true });
  const daveHere = `dave@${a.host}`;
  await eventually('Carol sees Dave\'s request', async () =>
    (await asCarol('GET', '/api/follow-requests')).json.some((r: { username: string }) => r.username === daveHere));
  t.equal((await asCarol('DELETE', `/api/follow-requests/${encodeURIComponent(daveHere)}`)).status, 200);
  await eventually('Dave\'s request is gone on his server', async () =>
    (await asDave('GET', `/api/view-user-posts?username=${encodeURIComponent(carolThere)}`)).json.isRequested === false);
  t.equal((await asDave('GET', `/api/view-user-posts?username=${encodeURIComponent(carolThere)}`)).json.isFollowing, false, 'and he does not follow her');

  // Unfollow sends Undo: Bob loses Alice as a follower.
  t.match((await asAlice('DELETE', `/api/account/${encodeURIComponent(bobThere)}/follow`)).json, { following: false, requested: false });
  await eventually('Bob no longer has Alice as a follower', async () =>
    !(await asBob('GET', '/api/account/bob/followers')).json.some((f: { username: string }) => f.username === aliceHere));
  t.equal(b.app.database.sqlite.prepare('SELECT follower_count FROM users WHERE id = ?').pluck().get(bob.id), 0, 'his follower count back to 0');

  // The other way: Bob follows Alice, who is public, and is accepted at once.
  await asBob('GET', `/api/search-profiles?username=${encodeURIComponent(`${a.origin}/users/${alice.id}`)}`);
  t.match((await asBob('POST', `/api/account/${encodeURIComponent(aliceHere)}/follow`)).json, { requested: true });
  await eventually('Bob follows Alice', async () =>
    (await asBob('GET', `/api/view-user-posts?username=${encodeURIComponent(aliceHere)}`)).json.isFollowing === true);
  t.same((await asAlice('GET', '/api/account/alice/followers')).json.map((f: { username: string }) => f.username), [bobThere]);
});

t.test('people of other servers are not ours: not served as actors, not counted, never signed in', async (t) => {
  const { a, b } = await twoServers(t);
  const alice = await a.createUser('alice');
  const bob = await b.createUser('bob');
  const asAlice = client(a.app, alice.token);
  await asAlice('GET', `/api/search-profiles?username=${encodeURIComponent(`${b.origin}/users/${bob.id}`)}`);
  const row = a.app.database.sqlite
    .prepare<[string], { id: number; sub: string; host: string }>('SELECT id, sub, host FROM users WHERE username = ?')
    .get(`bob@${b.host}`);
  t.ok(row, 'Bob is kept on Alice\'s server');
  t.equal(row!.host, b.host);
  t.ok(row!.sub.startsWith('~remote:'), 'with a sub no provider issues');

  const actor = await a.app.inject({ url: `/users/${row!.id}`, headers: { accept: 'application/activity+json' } });
  t.equal(actor.statusCode, 404, 'his row is not served as an actor of Alice\'s server');
  const nodeinfo = await a.app.inject({ url: '/nodeinfo/2.1' });
  t.equal(nodeinfo.json().usage.users.total, 1, 'NodeInfo counts Alice only');
  const finger = await a.app.inject({ url: `/.well-known/webfinger?resource=${encodeURIComponent(`acct:bob@${b.host}@${a.host}`)}` });
  t.equal(finger.statusCode, 404, 'WebFinger does not answer for him');

  // A token carrying his sub signs no one in.
  const forged = await a.tokenFor({ username: 'bob', sub: row!.sub });
  t.equal((await client(a.app, forged)('GET', '/api/me')).status, 401);
  t.equal((a.app.database.sqlite.prepare('SELECT count(*) FROM users').pluck().get() as number), 2, 'and makes no account');
});

t.test('an inbox takes only signed activities, and only so much of one', async (t) => {
  const { a } = await twoServers(t);
  const alice = await a.createUser('alice');
  const unsigned = await a.app.inject({
    method: 'POST',
    url: `/users/${alice.id}/inbox`,
    headers: { 'content-type': 'application/activity+json' },
    payload: JSON.stringify({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: 'https://evil.example/follows/1',
      type: 'Follow',
      actor: 'https://evil.example/users/mallory',
      object: `${a.origin}/users/${alice.id}`,
    }),
  });
  t.equal(unsigned.statusCode, 401, 'an unsigned Follow is refused');
  const big = await a.app.inject({
    method: 'POST',
    url: '/inbox',
    headers: { 'content-type': 'application/activity+json' },
    payload: JSON.stringify({ type: 'Note', content: 'x'.repeat(300 * 1024) }),
  });
  t.equal(big.statusCode, 413, 'an oversized body is refused before it is read');
  t.equal(big.json().error, 'payload_too_large');
  t.equal((await client(a.app, alice.token)('GET', '/api/account/alice/followers')).json.length, 0, 'nothing changed');
  t.equal(a.app.database.sqlite.prepare('SELECT count(*) FROM users WHERE host IS NOT NULL').pluck().get(), 0, 'no remote person kept');
});

t.test('a private account going public approves the requests waiting from another server: they end up following', async (t) => {
  const { a, b } = await twoServers(t);
  const alice = await a.createUser('alice');
  const dave = await a.createUser('dave');
  const carol = await b.createUser('carol');
  const asAlice = client(a.app, alice.token);
  const asDave = client(a.app, dave.token);
  const asCarol = client(b.app, carol.token);
  t.equal((await asCarol('PUT', '/api/account/privacy', { isPrivate: true })).status, 200);

  const carolThere = `carol@${b.host}`;
  const profile = (as: typeof asAlice) => as('GET', `/api/view-user-posts?username=${encodeURIComponent(carolThere)}`);
  for (const as of [asAlice, asDave]) {
    t.equal((await as('GET', `/api/search-profiles?username=${encodeURIComponent(`${b.origin}/users/${carol.id}`)}`)).json[0]?.username, carolThere);
    t.match((await as('POST', `/api/account/${encodeURIComponent(carolThere)}/follow`)).json, { following: false, requested: true });
  }
  const waiting = [`alice@${a.host}`, `dave@${a.host}`];
  await eventually('Carol has both requests waiting', async () =>
    (await asCarol('GET', '/api/follow-requests')).json.length === 2);
  t.same((await asCarol('GET', '/api/follow-requests')).json.map((r: { username: string }) => r.username).sort(), waiting);
  t.match((await profile(asAlice)).json, { isFollowing: false, isRequested: true }, 'Alice sees "Requested"');

  // Carol goes public: both requests are approved, and each server is sent an Accept.
  const publicAgain = await asCarol('PUT', '/api/account/privacy', { isPrivate: false });
  t.equal(publicAgain.status, 200);
  t.match(publicAgain.json, { isPrivate: false, approved: 2 });
  t.same((await asCarol('GET', '/api/follow-requests')).json, [], 'no request left waiting');
  t.same((await asCarol('GET', '/api/account/carol/followers')).json.map((f: { username: string }) => f.username).sort(), waiting);

  for (const [who, as] of [['Alice', asAlice], ['Dave', asDave]] as const) {
    await eventually(`${who} follows Carol on her own server`, async () => (await profile(as)).json.isFollowing === true);
    t.match((await profile(as)).json, { isFollowing: true, isRequested: false }, `${who}'s "Requested" became "Following"`);
    t.ok(JSON.stringify((await as('GET', '/api/notifications')).json).includes(carolThere), `${who} is told carol@host accepted`);
  }
  t.equal(
    a.app.database.sqlite.prepare('SELECT following_count FROM users WHERE id = ?').pluck().get(alice.id),
    1,
    'Alice\'s following count counts Carol',
  );
});
