import t from 'tap';
import { createFederation, MemoryKvStore } from '@fedify/fedify';
import { Application, CryptographicKey, type Multikey, Person } from '@fedify/vocab';
import { client, insertPost } from '../api/factories.js';
import { buildTestApp } from '../helpers.js';
import { freePort } from './peer.js';

/**
 * Another server's view of ours, with none of our code: a Fedify instance of its own (its own
 * in-memory store) fetches our actors over HTTP from our server listening on loopback, and parses
 * them as any Fedify-based server would. `allowPrivateAddress` lets that peer reach 127.0.0.1: for
 * tests only (Fedify refuses private addresses by default, and our server keeps that default).
 * WebFinger lookups of acct: handles always go over https, which a plain-http loopback server
 * cannot offer, so the peer looks people up by actor URL.
 */
t.test('a separate Fedify instance looks up our actors by URL and reads their names and keys', async (t) => {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const { app, createUser } = await buildTestApp(t, { FEDERATION: 'on', PUBLIC_URL: origin, ADMIN_USERNAMES: 'olga' });
  await app.listen({ port, host: '127.0.0.1' });
  const olga = await createUser('olga');
  const alice = await createUser('alice');
  const sam = await createUser('sam');
  const picture = insertPost(app.database.sqlite, { userId: alice.id, isProfilePicture: true });
  t.equal((await client(app, alice.token)('PUT', '/api/account/privacy', { isPrivate: true })).status, 200);

  const peer = createFederation<void>({ kv: new MemoryKvStore(), allowPrivateAddress: true });
  const ctx = peer.createContext(new URL('http://peer.test/'), undefined);

  const actor = await ctx.lookupObject(`${origin}/users/${alice.id}`);
  t.ok(actor instanceof Person, 'a Person');
  const person = actor as Person;
  t.equal(person.id?.href, `${origin}/users/${alice.id}`);
  t.equal(person.preferredUsername?.toString(), 'alice');
  t.equal(person.name?.toString(), 'alice');
  t.equal(person.manuallyApprovesFollowers, true, 'private: follows need approval');
  t.equal(person.url?.href, `${origin}/app/profile/alice`);
  t.equal(person.inboxId?.href, `${origin}/users/${alice.id}/inbox`);
  t.equal(person.endpoints?.sharedInbox?.href, `${origin}/inbox`);
  t.equal(person.outboxId?.href, `${origin}/users/${alice.id}/outbox`);
  t.equal(person.followersId?.href, `${origin}/users/${alice.id}/followers`);
  t.equal(person.followingId?.href, `${origin}/users/${alice.id}/following`);
  const icon = await person.getIcon();
  t.equal(icon?.url instanceof URL ? icon.url.href : undefined, `${origin}/media/${picture.mediaKey}/thumb.webp`, 'the profile picture');

  const key = await person.getPublicKey();
  t.ok(key instanceof CryptographicKey, 'an RSA public key for HTTP Signatures');
  t.equal(key?.ownerId?.href, person.id?.href, 'owned by the actor');
  t.equal(key?.publicKey?.algorithm.name, 'RSASSA-PKCS1-v1_5', 'imported by the peer as a usable RSA key');
  const multikeys: Multikey[] = [];
  for await (const m of person.getAssertionMethods()) multikeys.push(m);
  t.same(multikeys.map((m) => m.publicKey?.algorithm.name).sort(), ['Ed25519', 'RSASSA-PKCS1-v1_5'], 'and an Ed25519 one for Object Integrity Proofs');

  const instance = await ctx.lookupObject(`${origin}/actor`);
  t.ok(instance instanceof Application, 'the instance actor is an Application');
  t.equal((await (instance as Application).getPublicKey())?.publicKey?.algorithm.name, 'RSASSA-PKCS1-v1_5', 'with a key to sign the server\'s fetches');

  t.equal((await client(app, olga.token)('POST', '/api/admin/users/sam/suspend', { reason: 'Spam.' })).status, 200);
  t.equal(await ctx.lookupObject(`${origin}/users/${sam.id}`), null, 'a suspended person is not found');
});
