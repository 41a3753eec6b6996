import { createPublicKey, type webcrypto } from 'node:crypto';
import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { client, insertComment, insertPost } from '../api/factories.js';
import { buildTestApp } from '../helpers.js';
import { ConfigError, loadConfig } from '../../src/kernel/config.js';
import { APP_VERSION } from '../../src/kernel/version.js';

const AP = 'application/activity+json';
const get = (app: FastifyInstance, url: string, accept = AP) => app.inject({ method: 'GET', url, headers: { accept } });
const webfinger = (app: FastifyInstance, resource: string) =>
  get(app, `/.well-known/webfinger?resource=${encodeURIComponent(resource)}`, 'application/jrd+json');

t.test('FEDERATION: unset leaves it to the operator; on or off fixes it; on needs an https:// PUBLIC_URL (plain http only on loopback)', async (t) => {
  t.match(loadConfig({ PUBLIC_URL: 'https://beer.example' }).federation, { forced: null, unavailable: '' }, 'the operator decides');
  t.equal(loadConfig({ PUBLIC_URL: 'https://beer.example', FEDERATION: 'on' }).federation.forced, 'on');
  t.equal(loadConfig({ PUBLIC_URL: 'https://beer.example', FEDERATION: 'off' }).federation.forced, 'off');
  t.match(
    loadConfig({ PUBLIC_URL: 'http://beer.example' }).federation.unavailable,
    /needs PUBLIC_URL to be the server's public https:\/\/ address/,
    'a public http:// address cannot federate, and says why',
  );
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (err) {
      return err;
    }
    return null;
  };
  const http = refusal({ PUBLIC_URL: 'http://beer.example', FEDERATION: 'on' });
  t.ok(http instanceof ConfigError, 'FEDERATION=on with a public http:// address is refused at start');
  t.match((http as Error).message, /FEDERATION=on: Federation needs PUBLIC_URL to be the server's public https:\/\/ address/);
  t.ok(refusal({ FEDERATION: 'yes' }) instanceof ConfigError, 'only on or off');
  for (const url of ['http://localhost:3000', 'http://127.0.0.1:8080', 'http://[::1]:3000']) {
    t.equal(loadConfig({ PUBLIC_URL: url, FEDERATION: 'on' }).federation.forced, 'on', `${url}: loopback, for tests and development`);
  }
});

t.test('off: no federation route answers, and nothing is made', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  t.equal(app.federation, null);
  for (const [url, accept] of [
    ['/.well-known/webfinger?resource=acct:alice@localhost:3000', 'application/jrd+json'],
    ['/.well-known/nodeinfo', 'application/json'],
    ['/nodeinfo/2.1', 'application/json'],
    [`/users/${alice.id}`, AP],
    [`/users/${alice.id}`, 'text/html'],
    [`/users/${alice.id}/outbox`, AP],
    [`/users/${alice.id}/followers`, AP],
    ['/actor', AP],
  ] as const) {
    const res = await get(app, url, accept);
    t.equal(res.statusCode, 404, `${url} (${accept}): 404`);
    t.equal(res.json().error, 'not_found', 'the app\'s own 404, as for any path it does not know');
  }
  t.equal(app.database.sqlite.prepare('SELECT count(*) FROM federation_keys').pluck().get(), 0, 'no key was made');
});

t.test('WebFinger finds a person by acct: (any case) and by profile URL, and not a suspended or removed one', async (t) => {
  const { app, createUser } = await buildTestApp(t, { FEDERATION: 'on', ADMIN_USERNAMES: 'olga' });
  const olga = await createUser('olga');
  const alice = await createUser('alice');
  const sam = await createUser('sam');
  const carol = await createUser('carol');

  for (const resource of ['acct:alice@localhost:3000', 'acct:ALICE@localhost:3000', 'http://localhost:3000/app/profile/alice']) {
    const res = await webfinger(app, resource);
    t.equal(res.statusCode, 200, resource);
    const jrd = res.json();
    const self = jrd.links.find((l: { rel: string }) => l.rel === 'self');
    t.same(self, { rel: 'self', href: `http://localhost:3000/users/${alice.id}`, type: AP }, `${resource}: the actor, by id`);
    t.ok(
      jrd.links.some((l: { rel: string; href: string }) => l.rel === 'http://webfinger.net/rel/profile-page' && l.href === 'http://localhost:3000/app/profile/alice'),
      'and the page in the app',
    );
  }
  t.equal((await webfinger(app, 'acct:nobody@localhost:3000')).statusCode, 404, 'nobody by that name');
  t.equal((await webfinger(app, 'acct:alice@elsewhere.example')).statusCode, 404, 'not a name on another host');

  t.equal((await client(app, olga.token)('POST', '/api/admin/users/sam/suspend', { reason: 'Spam.' })).status, 200);
  t.equal((await webfinger(app, 'acct:sam@localhost:3000')).statusCode, 404, 'a suspended person is not found');
  t.equal((await get(app, `/users/${sam.id}`)).statusCode, 404, 'nor served');
  t.equal((await get(app, `/users/${sam.id}`, 'text/html')).statusCode, 404, 'nor sent to a page');

  t.ok((await client(app, carol.token)('DELETE', '/api/account', { confirmUsername: 'carol' })).status < 300);
  t.equal((await webfinger(app, 'acct:carol@localhost:3000')).statusCode, 404, 'a removed person is not found');
  const gone = await get(app, `/users/${carol.id}`);
  t.equal(gone.statusCode, 410, 'nor served: 410 Gone, so other servers drop her');
  t.equal(gone.json().type, 'Tombstone');
});

t.test('the actor: a Person with its name, picture, collections and two stored key pairs; private accounts approve followers', async (t) => {
  const { app, createUser } = await buildTestApp(t, { FEDERATION: 'on' });
  const db = app.database.sqlite;
  const alice = await createUser('alice');
  const picture = insertPost(db, { userId: alice.id, isProfilePicture: true });
  const base = `http://localhost:3000/users/${alice.id}`;

  const res = await get(app, `/users/${alice.id}`);
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^application\/activity\+json/);
  const actor = res.json();
  t.match(actor, {
    id: base,
    type: 'Person',
    preferredUsername: 'alice',
    name: 'alice',
    url: 'http://localhost:3000/app/profile/alice',
    icon: { type: 'Image', url: `http://localhost:3000/media/${picture.mediaKey}/thumb.webp`, mediaType: 'image/webp' },
    inbox: `${base}/inbox`,
    endpoints: { sharedInbox: 'http://localhost:3000/inbox' },
    outbox: `${base}/outbox`,
    followers: `${base}/followers`,
    following: `${base}/following`,
    manuallyApprovesFollowers: false,
    publicKey: { id: `${base}#main-key`, owner: base, publicKeyPem: /^-----BEGIN PUBLIC KEY-----/ },
  });
  t.equal(actor.summary, undefined, 'no summary: the app has no bio');
  t.equal(actor.assertionMethod.length, 2, 'two Multikeys: RSA and Ed25519');
  t.ok(actor.assertionMethod.some((k: { publicKeyMultibase: string }) => k.publicKeyMultibase.startsWith('z6Mk')), 'one is Ed25519 (multibase z6Mk…)');

  // The keys are made once and stored: the served key is the stored one, and stays the same.
  const stored = db
    .prepare<[string], { algorithm: string; publicKeyJwk: string }>('SELECT algorithm, public_key_jwk AS publicKeyJwk FROM federation_keys WHERE actor = ? ORDER BY algorithm')
    .all(String(alice.id));
  t.same(stored.map((k) => k.algorithm), ['Ed25519', 'RSASSA-PKCS1-v1_5']);
  const rsa = JSON.parse(stored[1]!.publicKeyJwk) as webcrypto.JsonWebKey;
  t.equal(rsa.n && Buffer.from(rsa.n, 'base64url').length * 8, 2048, 'RSA-2048');
  const storedPem = createPublicKey({ key: rsa as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
  t.equal(actor.publicKey.publicKeyPem.trim(), String(storedPem).trim(), 'the served RSA key is the stored one');
  t.equal((await get(app, `/users/${alice.id}`)).json().publicKey.publicKeyPem, actor.publicKey.publicKeyPem, 'the same on the next fetch');

  t.equal((await client(app, alice.token)('PUT', '/api/account/privacy', { isPrivate: true })).status, 200);
  t.equal((await get(app, `/users/${alice.id}`)).json().manuallyApprovesFollowers, true, 'a private account approves its followers');
  t.equal(db.prepare('SELECT count(*) FROM federation_keys WHERE actor = ?').pluck().get(String(alice.id)), 2, 'and keeps its keys');

  const browser = await get(app, `/users/${alice.id}`, 'text/html,application/xhtml+xml');
  t.equal(browser.statusCode, 303, 'a browser asking for the actor URL…');
  t.equal(browser.headers.location, 'http://localhost:3000/app/profile/alice', '…is sent to the page in the app');
  t.equal((await get(app, '/users/alice')).statusCode, 404, 'actors go by id, not name');
});

t.test('the instance actor: an Application with keys, at /actor', async (t) => {
  const { app } = await buildTestApp(t, { FEDERATION: 'on' });
  const res = await get(app, '/actor');
  t.equal(res.statusCode, 200);
  t.match(res.json(), {
    id: 'http://localhost:3000/actor',
    type: 'Application',
    preferredUsername: 'localhost',
    name: 'Shower Beer',
    inbox: 'http://localhost:3000/inbox',
    manuallyApprovesFollowers: true,
    publicKey: { id: 'http://localhost:3000/actor#main-key', owner: 'http://localhost:3000/actor', publicKeyPem: /^-----BEGIN PUBLIC KEY-----/ },
  });
  t.equal(app.database.sqlite.prepare("SELECT count(*) FROM federation_keys WHERE actor = 'instance'").pluck().get(), 2);
});

t.test('anonymous posts are in no federated answer: outbox and NodeInfo count named posts and their comments only', async (t) => {
  const { app, createUser } = await buildTestApp(t, { FEDERATION: 'on', REGISTRATION_MODE: 'approval' });
  const db = app.database.sqlite;
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const named = insertPost(db, { userId: alice.id, caption: 'named' });
  const secret = insertPost(db, { userId: alice.id, caption: 'anonymous', isAnonymous: true });
  insertPost(db, { userId: alice.id, isProfilePicture: true });
  insertComment(db, named.id, bob.id, 'on the named one');
  insertComment(db, secret.id, bob.id, 'on the anonymous one');
  insertComment(db, secret.id, alice.id, 'its author, anonymously');
  await client(app, bob.token)('POST', '/api/account/alice/follow');

  const outbox = await get(app, `/users/${alice.id}/outbox`);
  t.equal(outbox.statusCode, 200);
  t.match(outbox.json(), { type: 'OrderedCollection', id: `http://localhost:3000/users/${alice.id}/outbox`, totalItems: 1 }, 'one named post');
  t.notOk(outbox.body.includes('anonymous'), 'nothing of the anonymous post');
  t.equal((await get(app, `/users/${alice.id}/followers`)).json().totalItems, 1, 'followers: the count the profile shows');
  t.equal((await get(app, `/users/${bob.id}/following`)).json().totalItems, 1, 'following too');
  t.equal((await get(app, `/users/${bob.id}/outbox`)).json().totalItems, 0);

  const wellKnown = await get(app, '/.well-known/nodeinfo', 'application/json');
  t.equal(wellKnown.statusCode, 200);
  t.same(wellKnown.json().links.map((l: { rel: string; href: string }) => [l.rel, l.href]), [
    ['http://nodeinfo.diaspora.software/ns/schema/2.1', 'http://localhost:3000/nodeinfo/2.1'],
  ]);
  const nodeInfo = await get(app, '/nodeinfo/2.1', 'application/json');
  t.equal(nodeInfo.statusCode, 200);
  t.match(nodeInfo.headers['content-type'], /nodeinfo\.diaspora\.software\/ns\/schema\/2\.1/);
  t.same(nodeInfo.json(), {
    $schema: 'http://nodeinfo.diaspora.software/ns/schema/2.1#',
    version: '2.1',
    software: { name: 'shower-beer', version: APP_VERSION },
    protocols: ['activitypub'],
    services: { inbound: [], outbound: [] },
    openRegistrations: false,
    usage: { users: { total: 2 }, localPosts: 1, localComments: 1 },
    metadata: { nodeName: 'Shower Beer' },
  }, 'two people, one named post with one comment: the anonymous post and its two comments are not counted');
});
