import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { client } from '../api/factories.js';
import { buildTestApp } from '../helpers.js';
import { createPost, makeJpeg, upload } from '../media/upload-helpers.js';
import { outboxRetryDelayMs, OUTBOX_RETRY } from '../../src/federation/delivery-failures.js';
import { eventually } from './peer.js';
import { followAcross, twoServers } from './two-servers.js';

const AP = 'application/activity+json';
const webfinger = (name: string) => `/.well-known/webfinger?resource=${encodeURIComponent(`acct:${name}@localhost:3000`)}`;

t.test("the operator's switch: off until turned on, kept across a restart, logged; others get 403", async (t) => {
  const first = await buildTestApp(t, { ADMIN_USERNAMES: 'olga' });
  const olga = await first.createUser('olga');
  const alice = await first.createUser('alice');
  const asOlga = client(first.app, olga.token);

  const off = await asOlga('GET', '/api/admin/federation');
  t.equal(off.status, 200);
  t.match(off.json, { enabled: false, setBy: 'operator', unavailable: '', handleHost: 'localhost:3000', queue: { waiting: 0 }, failures: [] });
  t.equal((await first.app.inject({ method: 'GET', url: webfinger('alice') })).statusCode, 404, 'off: WebFinger is not there');

  const asAlice = client(first.app, alice.token);
  t.equal((await asAlice('GET', '/api/admin/federation')).status, 403, 'not an operator: 403');
  t.equal((await asAlice('PUT', '/api/admin/federation', { enabled: true })).status, 403);
  t.equal((await asOlga('PUT', '/api/admin/federation', { enabled: 'yes' })).status, 400, 'a bad body: 400');
  t.equal((await asOlga('PUT', '/api/admin/federation', {})).status, 400);
  t.equal(first.app.federation, null, 'and nothing was turned on');

  const on = await asOlga('PUT', '/api/admin/federation', { enabled: true });
  t.equal(on.status, 200);
  t.equal(on.json.enabled, true);
  const found = await first.app.inject({ method: 'GET', url: webfinger('alice') });
  t.equal(found.statusCode, 200, 'on: WebFinger finds Alice at once, no restart');
  t.match(found.json().links, [{ rel: 'self', href: `http://localhost:3000/users/${alice.id}` }]);
  t.equal((await asOlga('PUT', '/api/admin/federation', { enabled: true })).json.enabled, true, 'turning it on twice is harmless');
  const log = (await asOlga('GET', '/api/admin/overview')).json.actions as Array<{ action: string; target: string; operator: string }>;
  t.match(log[0], { action: 'change_federation', target: 'on' }, 'in the moderation log');
  t.equal(log.filter((a) => a.action === 'change_federation').length, 1, 'once: the second save changed nothing');

  // A restart on the same data: still on.
  await first.app.close();
  const second = await buildTestApp(t, { ADMIN_USERNAMES: 'olga', DATA_DIR: first.dataDir });
  t.equal((await second.app.inject({ method: 'GET', url: webfinger('alice') })).statusCode, 200, 'on after a restart');
  const asOlgaAgain = client(second.app, await second.tokenFor({ username: 'olga', sub: olga.sub }));
  t.equal((await asOlgaAgain('PUT', '/api/admin/federation', { enabled: false })).json.enabled, false);
  t.equal((await second.app.inject({ method: 'GET', url: webfinger('alice') })).statusCode, 404, 'off again: gone at once');
  t.equal((await second.app.inject({ method: 'GET', url: `/users/${alice.id}`, headers: { accept: AP } })).statusCode, 404);
  t.equal(second.app.federation, null);
});

t.test('the environment fixes it, and an http:// address cannot turn it on; both say why and change nothing', async (t) => {
  const forced = await buildTestApp(t, { ADMIN_USERNAMES: 'olga', FEDERATION: 'on' });
  const asOlga = client(forced.app, (await forced.createUser('olga')).token);
  t.match((await asOlga('GET', '/api/admin/federation')).json, { enabled: true, setBy: 'environment' });
  const refused = await asOlga('PUT', '/api/admin/federation', { enabled: false });
  t.equal(refused.status, 409);
  t.match(refused.json, { error: 'conflict', message: /FEDERATION=on/ });
  t.not(forced.app.federation, null, 'still on');

  const plain = await buildTestApp(t, { ADMIN_USERNAMES: 'olga', PUBLIC_URL: 'http://beer.example' });
  const asOlgaThere = client(plain.app, (await plain.createUser('olga')).token);
  const status = await asOlgaThere('GET', '/api/admin/federation');
  t.match(status.json, { enabled: false, unavailable: /https:\/\// });
  const no = await asOlgaThere('PUT', '/api/admin/federation', { enabled: true });
  t.equal(no.status, 409);
  t.match(no.json.message, /PUBLIC_URL/);
  t.equal(plain.app.federation, null);
  t.equal(plain.app.database.sqlite.prepare('SELECT federation_enabled FROM instance_settings').pluck().get(), 0, 'nothing stored');
});

t.test('deliveries retry over days, then give up', async (t) => {
  const waits: number[] = [];
  for (let attempt = 0; ; attempt++) {
    const wait = outboxRetryDelayMs(attempt, () => 0);
    if (wait === null) break;
    waits.push(wait);
  }
  t.equal(waits.length + 1, OUTBOX_RETRY.maxAttempts, `${OUTBOX_RETRY.maxAttempts} attempts in all`);
  t.equal(waits[0], 30_000, 'the first retry after 30 s');
  t.equal(Math.max(...waits), 12 * 3_600_000, 'never more than 12 h apart');
  const days = (ms: number) => ms / 86_400_000;
  const least = waits.reduce((a, b) => a + b, 0);
  const most = Array.from(waits.keys(), (i) => outboxRetryDelayMs(i, () => 0.999_999)!).reduce((a, b) => a + b, 0);
  t.ok(days(least) > 2.5 && days(most) < 3.5, `the last attempt ${days(least).toFixed(1)} to ${days(most).toFixed(1)} days after the first`);
});

t.test('the operator page lists the other servers, what waits for them, and the deliveries that failed', async (t) => {
  const { a, b } = await twoServers(t, { ADMIN_USERNAMES: 'olga' });
  const olga = await a.createUser('olga');
  const alice = await a.createUser('alice');
  const bob = await b.createUser('bob');
  const asOlga = client(a.app, olga.token);

  // Bob follows Alice, and Alice follows Bob: one follower and one followee on B.
  await followAcross(b, bob.token, a, alice);
  await followAcross(a, alice.token, b, bob);
  await eventually('both follows are accepted', async () => {
    const s = (await asOlga('GET', '/api/admin/federation')).json;
    return s.servers[0]?.followers === 1 && s.servers[0]?.following === 1;
  });
  const status = (await asOlga('GET', '/api/admin/federation')).json;
  t.match(status, { enabled: true, setBy: 'environment', servers: [{ host: b.host, people: 1, followers: 1, following: 1 }] });
  t.match(status.totals, { servers: 1, people: 1, followers: 1, following: 1 });

  // B goes down; a server that answers every delivery with 500 stands in its place. Alice posts:
  // the delivery fails, waits for a retry, and the page says so.
  await b.app.close();
  let refused = 0;
  const standIn = createServer((req, res) => {
    refused++;
    req.resume();
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => standIn.listen(Number(b.host.split(':')[1]), '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => standIn.close(() => resolve())));
  t.equal((standIn.address() as AddressInfo).port, Number(b.host.split(':')[1]));
  await createPost(a.app, alice.token, { s3Key: await upload(a.app, alice.token, await makeJpeg(320, 240)), caption: 'Cold one' });
  await eventually('the failed delivery is listed', async () => (await asOlga('GET', '/api/admin/federation')).json.failures.length > 0);
  const failing = (await asOlga('GET', '/api/admin/federation')).json;
  t.ok(refused > 0, 'the delivery was tried');
  t.match(failing.failures[0], { host: b.host, activity: 'Create', status: 500, error: 'HTTP 500', attempt: 1, gaveUp: false });
  t.match(failing.queue, { waiting: 1, servers: [{ host: b.host, waiting: 1, retrying: 1 }] }, 'waiting for its retry');
  t.ok(Date.parse(failing.queue.servers[0].nextAttemptAt) - Date.now() > 20_000, 'not before about 30 s');
  const json = JSON.stringify(failing);
  t.notMatch(json, /privateKey|"d":|BEGIN/, 'no key of the queued message is shown');
  t.notMatch(json, /Cold one/, 'nor what was sent');
});
