import type { webcrypto } from 'node:crypto';
import { signRequest } from '@fedify/fedify';
import { Like } from '@fedify/vocab';
import t from 'tap';
import { buildTestApp } from '../helpers.js';
import { createRateLimit, signerHost } from '../../src/federation/inbox-limits.js';
import { freePort, startPeer, type Peer } from './peer.js';

t.test('a token bucket: a burst, then the rate it keeps up; each sender its own', async (t) => {
  let now = 0;
  const limit = createRateLimit({ burst: 3, perMinute: 6, now: () => now });
  for (let i = 0; i < 3; i++) {
    t.ok(limit.allows('a.example'), `activity ${i + 1} of the burst`);
    limit.take('a.example');
  }
  t.notOk(limit.allows('a.example'), 'the fourth at once is refused');
  t.equal(limit.retryAfter('a.example'), 10, 'told to come back when a token is there: 10 s at 6 a minute');
  t.ok(limit.allows('b.example'), 'another sender is not slowed');
  now += 10_000;
  t.ok(limit.allows('a.example'), '10 s later, one more');
});

t.test('the signer named in either signature header', async (t) => {
  t.equal(signerHost({ signature: 'keyId="https://Mastodon.Example/users/ann#main-key",algorithm="rsa-sha256",headers="(request-target)",signature="x"' }), 'mastodon.example');
  t.equal(signerHost({ 'signature-input': 'sig1=("@method");keyid="https://pix.example:8443/users/bo#main-key";alg="rsa-v1_5-sha256"' }), 'pix.example:8443');
  t.equal(signerHost({}), null, 'unsigned');
  t.equal(signerHost({ signature: 'keyId="not a url"' }), null);
});

t.test("one server's flood is slowed with 429 and Retry-After; another server's deliveries still get in", async (t) => {
  const [flooder, neighbour] = [await startPeer(t), await startPeer(t)];
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const { app, createUser } = await buildTestApp(t, {
    FEDERATION: 'on',
    PUBLIC_URL: origin,
    FEDERATION_ALLOWED_PRIVATE_HOSTS: `${flooder.host},${neighbour.host}`,
    FEDERATION_INBOX_PER_MINUTE: '4',
  });
  await app.listen({ port, host: '127.0.0.1' });
  const alice = await createUser('alice');
  let n = 0;
  const deliver = async (peer: Peer, signed = true) => {
    const [pair] = await peer.ctx.getActorKeyPairs('pat');
    const like = new Like({ id: new URL(`${peer.origin}/likes/${++n}`), actor: peer.actor, object: new URL(`${origin}/users/${alice.id}/posts/1`) });
    let request = new Request(`${origin}/inbox`, {
      method: 'POST',
      headers: { 'content-type': 'application/activity+json' },
      body: JSON.stringify(await like.toJsonLd()),
    });
    // ActorKeyPair is a CryptoKeyPair (its privateKey), as the DOM's types do not say here.
    if (signed) request = await signRequest(request, (pair as unknown as webcrypto.CryptoKeyPair).privateKey, pair!.keyId);
    return fetch(request);
  };

  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push((await deliver(flooder)).status);
  t.same(statuses.slice(0, 4), [202, 202, 202, 202], 'its burst gets in');
  t.same(statuses.slice(4), [429, 429], 'then it is slowed down');
  const slowed = await deliver(flooder);
  t.equal(slowed.status, 429);
  // A token comes back every 15 s at 4 a minute; some of it may have passed on a slow machine.
  const retryAfter = Number(slowed.headers.get('retry-after'));
  t.ok(retryAfter >= 1 && retryAfter <= 15, `and told when to come back (${retryAfter} s, at most 15)`);
  t.match(await slowed.json(), { error: 'rate_limited', message: `Too many activities from this sender; try again in ${retryAfter} s.` });
  t.equal((await deliver(neighbour)).status, 202, 'the other server is not slowed');

  // Requests that fail the signature check cost the server they claim nothing: they count
  // against the address they come from, up to its own limit.
  // 60 at once, 30 a minute after: on a slow machine a few more get through before the first 429.
  const forged: number[] = [];
  while (forged.length < 120 && forged.at(-1) !== 429) forged.push((await deliver(neighbour, false)).status);
  const refusedFirst = forged.slice(0, -1);
  t.equal(forged.at(-1), 429, `then slowed by address, after ${refusedFirst.length} refusals`);
  t.ok(refusedFirst.length >= 60 && refusedFirst.every((s) => s === 401), 'each before it refused with 401, at least 60 of them');
});
