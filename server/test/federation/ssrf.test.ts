import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import t from 'tap';
import { lookupAllowed } from '../../src/federation/follow-activities.js';
import { reachable } from '../../src/federation/remote-actors.js';
import { fetchImage } from '../../src/federation/remote-posts.js';
import { createFetchGuard, guardedFetch, parseIPv4, parseIPv6, privateHostLiteral, publicAddress } from '../../src/federation/safe-fetch.js';
import { client } from '../api/factories.js';
import { buildTestApp } from '../helpers.js';
import { eventually, freePort, startPeer } from './peer.js';

/**
 * Nothing fetched hurts us (issue 50, item 4; server/src/federation/safe-fetch.ts): a scripted
 * hostile peer on a listed loopback port aims our fetches at other local addresses, in every
 * spelling, through redirects, WebFinger and DNS that changes its answer, and serves documents and
 * photos of 50 MB and requests that never end. A canary on an unlisted loopback port must see no
 * request at all, and a well-behaved listed peer must still get what we send it.
 */

const MB = 1024 * 1024;

/** An HTTP server that counts what reaches it: on every loopback address it can (IPv6 too, when the machine has it). */
async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void, host: string): Promise<{ server: Server; port: number }> {
  const port = await freePort();
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { server, port };
}

const canaryHits: string[] = [];
const canary = await listen((req, res) => {
  canaryHits.push(`${req.method} ${req.url}`);
  res.writeHead(200, { 'content-type': 'application/activity+json' }).end('{}');
}, '::').catch(() => listen((req, res) => {
  canaryHits.push(`${req.method} ${req.url}`);
  res.end('{}');
}, '127.0.0.1'));
const C = canary.port;
t.teardown(() => {
  canary.server.closeAllConnections();
  canary.server.close();
});

/** Bytes the hostile peer wrote, by path, and the paths asked. */
const written = new Map<string, number>();
const asked: string[] = [];
/** Answers that are never sent (the peer that never answers), closed at the end. */
const hanging: ServerResponse[] = [];
let H = '';

/** Streams `total` bytes of `fill`, as fast as the reader takes them, counting what actually left. */
function stream(res: ServerResponse, path: string, total: number, fill: string): void {
  const chunk = Buffer.alloc(64 * 1024, fill);
  let sent = 0;
  const more = () => {
    while (sent < total) {
      sent += chunk.length;
      written.set(path, sent);
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    res.end();
  };
  res.on('close', () => written.set(path, Math.min(sent, written.get(path) ?? 0)));
  more();
}

const person = (name: string, extra: Record<string, unknown> = {}) => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: `${H}/users/${name}`,
  type: 'Person',
  preferredUsername: name,
  inbox: `${H}/users/${name}/inbox`,
  ...extra,
});

const hostile = await listen((req, res) => {
  const path = (req.url ?? '/').split('?')[0]!;
  asked.push(path);
  const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(body));
  switch (path) {
    case '/users/to-canary':
      return void res.writeHead(302, { location: `http://127.0.0.1:${C}/users/x` }).end();
    case '/users/to-metadata':
      return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    case '/users/to-mapped':
      return void res.writeHead(301, { location: `http://[::ffff:127.0.0.1]:${C}/users/x` }).end();
    case '/users/v6inbox':
      return json(person('v6inbox', { inbox: `http://[::1]:${C}/` }));
    case '/users/decimalinbox':
      return json(person('decimalinbox', { inbox: `http://2130706433:${C}/` }));
    case '/users/sharedloop':
      return json(person('sharedloop', { endpoints: { sharedInbox: `http://0x7f.1:${C}/inbox` } }));
    case '/users/wf':
      return void res.writeHead(404).end();
    case '/.well-known/webfinger':
      return void res.writeHead(200, { 'content-type': 'application/jrd+json' }).end(JSON.stringify({
        subject: `${H}/users/wf`,
        links: [
          { rel: 'self', type: 'application/activity+json', href: `http://127.0.0.1:${C}/users/x` },
          { rel: 'self', type: 'application/activity+json', href: `http://[::1]:${C}/users/y` },
          { rel: 'self', type: 'application/activity+json', href: 'http://169.254.169.254/latest/meta-data/' },
        ],
      }));
    case '/users/huge':
      // 50 MB of "document", without a length: read until the cap, then dropped.
      res.writeHead(200, { 'content-type': 'application/activity+json' });
      res.write('{"@context":"https://www.w3.org/ns/activitystreams","type":"Person","summary":"');
      return stream(res, path, 50 * MB, 'a');
    case '/users/hugeicon':
      return json(person('hugeicon', { icon: { type: 'Image', mediaType: 'image/jpeg', url: `${H}/img/huge` } }));
    case '/img/huge':
      // A 50 MB "photo" that says so: refused on its headers.
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(50 * MB) });
      return stream(res, path, 50 * MB, '\xff');
    case '/users/chunkyicon':
      return json(person('chunkyicon', { icon: { type: 'Image', mediaType: 'image/jpeg', url: `${H}/img/chunky` } }));
    case '/img/chunky':
      // The same, without a length: read until the cap, then dropped.
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      return stream(res, path, 50 * MB, '\xff');
    case '/users/redirecticon':
      return json(person('redirecticon', { icon: { type: 'Image', mediaType: 'image/jpeg', url: `${H}/img/to-canary` } }));
    case '/img/to-canary':
      return void res.writeHead(302, { location: `http://127.0.0.1:${C}/img.jpg` }).end();
    case '/users/hang':
      hanging.push(res);
      return;
    default:
      res.writeHead(404).end();
  }
}, '127.0.0.1');
H = `http://127.0.0.1:${hostile.port}`;
t.teardown(() => {
  for (const res of hanging) res.destroy();
  hostile.server.closeAllConnections();
  hostile.server.close();
});

t.test('the address classifier: every spelling of a non-public address', async (t) => {
  t.same(parseIPv4('2130706433'), [127, 0, 0, 1], 'one decimal number');
  t.same(parseIPv4('0177.0.0.1'), [127, 0, 0, 1], 'octal parts');
  t.same(parseIPv4('0x7f.1'), [127, 0, 0, 1], 'a hex part and a short form');
  t.same(parseIPv4('127.1'), [127, 0, 0, 1], 'a short form');
  t.same(parseIPv4('0x7f000001'), [127, 0, 0, 1], 'one hex number');
  t.equal(parseIPv4('256.1.1.1'), null, 'a part too large');
  t.equal(parseIPv4('example.com'), null, 'a name');
  t.equal(parseIPv4('1.2.3.4.5'), null, 'five parts');
  t.same(parseIPv6('[::ffff:127.0.0.1]'), [...Array<number>(10).fill(0), 0xff, 0xff, 127, 0, 0, 1], 'an IPv4 tail');
  t.same(parseIPv6('::1'), [...Array<number>(15).fill(0), 1]);

  const notPublic = [
    '127.0.0.1', '127.255.255.254', '0.0.0.0', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1',
    '169.254.169.254', '100.64.0.1', '100.127.255.255', '224.0.0.1', '239.255.255.250', '255.255.255.255', '240.0.0.1',
    '192.0.0.8', '198.18.0.1', '2130706433', '0177.0.0.1', '0x7f.1', '127.1', '017700000001',
    '::1', '[::1]', '::', '::ffff:127.0.0.1', '[::ffff:7f00:1]', '::ffff:a9fe:a9fe', '::127.0.0.1', '::7f00:1',
    '64:ff9b::7f00:1', '64:ff9b::808:808', '64:ff9b:1::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'febf::1',
    'ff02::1', '2001:db8::1', '2002:7f00:1::1', '2001::1', '0:0:0:0:0:0:0:1',
  ];
  for (const address of notPublic) t.equal(publicAddress(address), false, `${address} is not public`);
  const isPublic = ['93.184.216.34', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:2800:220:1::1', '2a01:4f8::1', '[2606:4700::1111]'];
  for (const address of isPublic) t.equal(publicAddress(address), true, `${address} is public`);
  t.equal(publicAddress('example.com'), false, 'a name is not an address');

  // What a URL makes of each spelling is what reaches the checks: WHATWG URL already writes IPv4 in dotted decimal.
  const spellings: Array<[string, string]> = [
    ['http://2130706433/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://[::1]/', '[::1]'],
    ['http://[::ffff:127.0.0.1]/', '[::ffff:7f00:1]'],
    ['http://[::ffff:7f00:1]/', '[::ffff:7f00:1]'],
    ['http://[0:0:0:0:0:0:0:1]/', '[::1]'],
    ['http://LOCALHOST./', 'localhost.'],
    ['http://a.localhost/', 'a.localhost'],
    ['http://169.254.169.254/', '169.254.169.254'],
  ];
  for (const [url, hostname] of spellings) {
    t.equal(new URL(url).hostname, hostname, `${url} reaches the check as ${hostname}`);
    t.equal(privateHostLiteral(new URL(url).hostname), true, `and is refused without asking DNS`);
    t.equal(reachable(new URL(url.replace('http:', 'https:')), []), false, `reachable refuses ${url} over https`);
  }
  t.equal(privateHostLiteral('mastodon.social'), false, 'a name is for DNS to answer');
});

t.test('the guard: rebinding, listed hosts by port, timeouts', async (t) => {
  const before = canaryHits.length;
  // (d) A name that is public when a check asks and loopback when the connection is made.
  let answers = 0;
  const rebinding = async (hostname: string) => {
    answers++;
    if (hostname !== 'rebind.example') throw new Error('ENOTFOUND');
    return [{ address: answers === 1 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
  };
  const guard = createFetchGuard({ allowedPrivateHosts: [`127.0.0.1:${hostile.port}`], resolve: rebinding, timeoutMs: 500 });
  t.teardown(() => guard.close());
  const url = new URL(`https://rebind.example:${C}/users/x`);
  t.equal(await lookupAllowed(url, [`127.0.0.1:${hostile.port}`], rebinding), true, 'an early check sees a public address');
  const refused = await guard.run(() => fetch(url.href.replace('https:', 'http:'))).then(
    () => 'fetched',
    (err: Error) => (err.cause as Error | undefined)?.message ?? err.message,
  );
  t.match(refused, /is at 127\.0\.0\.1, an address federation does not reach/, 'the connection is checked on the address it opens to');
  t.equal(answers, 2, 'one answer per connection: the address checked is the one connected to');

  // A listed name is connected to at the address its one resolution gave, on its listed port only.
  let named = 0;
  const once = async () => [{ address: named++ === 0 ? '127.0.0.1' : '10.9.9.9', family: 4 }];
  const byName = createFetchGuard({ allowedPrivateHosts: [`peer.test:${hostile.port}`], resolve: once, timeoutMs: 2_000 });
  t.teardown(() => byName.close());
  const ok = await byName.run(() => fetch(`http://peer.test:${hostile.port}/users/v6inbox`));
  t.equal(ok.status, 200, 'a listed host:port is reached');
  t.equal(((await ok.json()) as { type: string }).type, 'Person');
  const otherPort = await byName.run(() => fetch(`http://peer.test:${C}/x`)).then(() => 'fetched', (err: Error) => (err.cause as Error).message);
  t.match(otherPort, /an address federation does not reach/, 'the same name on another port is not');

  // A name with an IPv6 address its server does not listen on, then an IPv4 one: each checked
  // address is tried in turn, as Node does for any name (the peer listens on 127.0.0.1 only).
  const dual = createFetchGuard({
    allowedPrivateHosts: [`dual.test:${hostile.port}`],
    resolve: async () => [{ address: '::1', family: 6 }, { address: '127.0.0.1', family: 4 }],
    timeoutMs: 2_000,
  });
  t.teardown(() => dual.close());
  const second = await dual.run(() => fetch(`http://dual.test:${hostile.port}/users/v6inbox`));
  t.equal(second.status, 200, 'the second checked address is connected to when the first refuses');
  await second.arrayBuffer();

  // Literal spellings handed to the connection itself, and IPv6 loopback.
  for (const target of [`http://[::1]:${C}/`, `http://[::ffff:127.0.0.1]:${C}/`, `http://2130706433:${C}/`, `http://0x7f.1:${C}/`, `http://127.1:${C}/`]) {
    const got = await guard.run(() => fetch(target)).then(() => 'fetched', (err: Error) => (err.cause as Error).message);
    t.match(got, /an address federation does not reach/, `${target} is refused at the connection`);
  }

  // (f) A peer that never answers: the request ends at the guard's deadline.
  const started = Date.now();
  const hung = await guard.run(() => fetch(`${H}/users/hang`)).then(() => 'fetched', (err: Error) => (err.cause as Error).message);
  t.match(hung, /no complete answer within 500 ms/, 'a peer that never answers is given up');
  t.ok(Date.now() - started < 5_000, `within its deadline (${Date.now() - started} ms)`);

  t.equal(await guardedFetch(`${H}/users/v6inbox`, {}).then(() => 'fetched', (err: Error) => err.message), 'a federation fetch outside a federation scope', 'our own fetches fail closed outside a scope');
  const outside = await fetch(`http://127.0.0.1:${C}/app-own`);
  t.equal(outside.status, 200, 'outside a federation scope the app\'s own fetches (Keycloak, OIDC) reach local addresses');
  await outside.arrayBuffer();
  t.same(canaryHits.slice(before), ['GET /app-own'], 'and the canary saw only that one');
  canaryHits.splice(before);
});

t.test('the guard: servers the operator does not federate with are not connected to', async (t) => {
  const before = canaryHits.length;
  // The canary's port is listed as a private host, so only refusedHost can keep it out: the host a
  // listed server's activity leads Fedify to (a key, a reply's parent) on a suspended or unlisted server.
  const asked: string[] = [];
  const guard = createFetchGuard({
    allowedPrivateHosts: [`127.0.0.1:${C}`, `127.0.0.1:${hostile.port}`],
    refusedHost: (host) => {
      asked.push(host);
      return host === `127.0.0.1:${C}`;
    },
    timeoutMs: 2_000,
  });
  t.teardown(() => guard.close());
  const refused = await guard.run(() => fetch(`http://127.0.0.1:${C}/users/x`)).then(() => 'fetched', (err: Error) => (err.cause as Error).message);
  t.equal(refused, `127.0.0.1:${C} is a server this one does not federate with`, 'a refused server is not connected to, and the reason says why');
  const other = await guard.run(() => fetch(`${H}/users/v6inbox`));
  t.equal(other.status, 200, 'a server it federates with is reached');
  await other.arrayBuffer();
  t.same(asked, [`127.0.0.1:${C}`, `127.0.0.1:${hostile.port}`], 'asked with the URL\'s host and port, once per connection');
  t.same(canaryHits.slice(before), [], 'the refused server saw no request');
});

t.test('a server among hostile and honest peers: every fetch refused, nothing stored, no 5xx, the honest peer served', async (t) => {
  const honest = await startPeer(t);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const { app, createUser } = await buildTestApp(t, {
    FEDERATION: 'on',
    PUBLIC_URL: origin,
    FEDERATION_ALLOWED_PRIVATE_HOSTS: `127.0.0.1:${port},127.0.0.1:${hostile.port},${honest.host}`,
  });
  await app.listen({ port, host: '127.0.0.1' });
  const alice = await createUser('alice');
  const as = client(app, alice.token);
  const remoteUsers = app.database.sqlite.prepare<[], number>('SELECT count(*) FROM users WHERE host IS NOT NULL').pluck();
  const kept = (name: string) =>
    app.database.sqlite.prepare<[string], { key: string | null }>('SELECT profile_picture_key AS key FROM users WHERE username = ?').get(`${name}@127.0.0.1:${hostile.port}`);
  const search = async (term: string) => {
    const res = await as('GET', `/api/search-profiles?username=${encodeURIComponent(term)}`);
    t.equal(res.status, 200, `a search for ${term} answers 200`);
    return (res.json as Array<{ username: string }>).map((m) => m.username);
  };

  // (a) Redirects of an actor's fetch to another local port, to the cloud metadata address, to an IPv4-mapped loopback.
  for (const name of ['to-canary', 'to-metadata', 'to-mapped']) {
    t.same(await search(`${H}/users/${name}`), [], `a redirect (${name}) finds nobody`);
  }
  // (b) Actors whose inboxes are on loopback, spelt [::1], as one decimal number, or in hex.
  for (const name of ['v6inbox', 'decimalinbox', 'sharedloop']) {
    t.same(await search(`${H}/users/${name}`), [], `an actor with a loopback inbox (${name}) is not taken`);
  }
  // (c) WebFinger whose self links point at private addresses.
  t.same(await search(`${H}/users/wf`), [], 'WebFinger\'s private self links are not followed');
  t.ok(asked.includes('/.well-known/webfinger'), 'WebFinger was asked');
  // (e) A 50 MB actor document: refused by size, not read to the end.
  t.same(await search(`${H}/users/huge`), [], 'a 50 MB actor document is refused');
  t.ok((written.get('/users/huge') ?? 0) < 12 * MB, `the peer could write only ${((written.get('/users/huge') ?? 0) / MB).toFixed(1)} MB of its 50 MB`);
  t.equal(remoteUsers.get(), 0, 'nobody stored so far');

  // (e) A 50 MB photo, with and without a length, and (a) a photo redirected to loopback: the person is kept, no picture.
  for (const name of ['hugeicon', 'chunkyicon', 'redirecticon']) {
    t.same(await search(`${H}/users/${name}`), [`${name}@127.0.0.1:${hostile.port}`], `${name} is found (their document is fine)`);
  }
  await eventually('the pictures were asked for', () => asked.includes('/img/huge') && asked.includes('/img/chunky') && asked.includes('/img/to-canary'));
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const name of ['hugeicon', 'chunkyicon', 'redirecticon']) t.equal(kept(name)?.key, null, `${name}'s picture was not kept`);
  t.ok((written.get('/img/huge') ?? 0) < 12 * MB, `a photo that declares 50 MB is refused on its headers (${((written.get('/img/huge') ?? 0) / MB).toFixed(1)} MB written)`);
  // The default UPLOAD_MAX_BYTES is 100 MB: remote photos are held to 16 MB (plugin.ts, REMOTE_IMAGE_MAX_BYTES).
  t.ok((written.get('/img/chunky') ?? 0) < 24 * MB, `one without a length is dropped at the 16 MB cap (${((written.get('/img/chunky') ?? 0) / MB).toFixed(1)} MB written)`);
  t.equal(remoteUsers.get(), 3, 'only those three people stored');
  const photos = app.database.sqlite.prepare<[], number>('SELECT count(*) FROM posts').pluck().get();
  t.equal(photos, 0, 'no photo (a picture is a post) stored');

  // A delivery, which Fedify's queue worker sends with the global fetch: to a person kept with an
  // inbox on the canary's port (as if kept before these checks; reachable refuses such an actor
  // now), the Follow is refused at the connection and recorded as a failed delivery.
  const db = app.database.sqlite;
  const staleId = db
    .prepare<[string, string, number, string], { id: number }>('INSERT INTO users (sub, username, created_at, host) VALUES (?, ?, ?, ?) RETURNING id')
    .get(`~remote:${H}/users/stale`, `stale@127.0.0.1:${hostile.port}`, Date.now(), `127.0.0.1:${hostile.port}`)!.id;
  db.prepare('INSERT INTO remote_actors (user_id, uri, inbox, fetched_at) VALUES (?, ?, ?, ?)').run(staleId, `${H}/users/stale`, `http://127.0.0.1:${C}/inbox`, Date.now());
  t.equal((await as('POST', `/api/account/${encodeURIComponent(`stale@127.0.0.1:${hostile.port}`)}/follow`)).status, 200, 'following them answers 200');
  const failed = db.prepare<[string], { status: number | null; error: string }>('SELECT status, error FROM federation_delivery_failures WHERE inbox = ?');
  await eventually('the delivery to the canary\'s port failed', () => failed.get(`http://127.0.0.1:${C}/inbox`) !== undefined);
  t.equal(failed.get(`http://127.0.0.1:${C}/inbox`)?.status, null, 'refused before any answer: the inbox was never reached');
  t.match(failed.get(`http://127.0.0.1:${C}/inbox`)?.error, /an address federation does not reach/, 'and the operator page says why');

  // The honest listed peer: our follow is delivered to it.
  t.same(await search(`${honest.origin}/users/pat`), [`pat@${honest.host}`], 'the honest peer\'s person is found');
  t.equal((await as('POST', `/api/account/${encodeURIComponent(`pat@${honest.host}`)}/follow`)).status, 200);
  await eventually('the honest peer got our Follow', () => honest.received.some((a) => a.constructor.name === 'Follow'));

  t.same(canaryHits, [], 'the canary on an unlisted loopback port saw no request');
});

t.test('fetchImage outside a federation scope fetches nothing', async (t) => {
  const before = asked.length;
  t.equal(await fetchImage(new URL(`${H}/img/chunky`), [`127.0.0.1:${hostile.port}`], MB), null);
  t.equal(asked.length, before, 'the peer was not asked');
});
