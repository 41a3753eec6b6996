import t from 'tap';
import { checkActivity, sameReading } from '../../src/federation/inbox-guard.js';

/**
 * inbox-guard.ts's reading of what an activity claims, case by case (the same refusals, end to
 * end against a hostile server, are in hostile.test.ts). Mallory is at m.example; we are ours.example.
 */

const AS = 'https://www.w3.org/ns/activitystreams';
const mallory = 'https://m.example/users/mallory';
const kept = new Map([['https://m.example/notes/1', mallory]]);
const deps = { origin: 'https://ours.example', authorOf: (uri: string) => kept.get(uri) };
const like = (extra: Record<string, unknown> = {}) => ({ '@context': AS, id: 'https://m.example/likes/1', type: 'Like', actor: mallory, object: 'https://ours.example/users/1/posts/2', ...extra });
const status = (json: unknown, signer: string | null = 'm.example') => {
  const verdict = checkActivity(json, signer, deps);
  return verdict.refusal ? verdict.refusal.status : verdict.dropHttpSignature ? 'dropped' : verdict.recheck ? 'recheck' : 'taken';
};

t.test('the signer: the actor’s own server, or an embedded signature of it alone', async (t) => {
  t.equal(status(like()), 'taken', 'signed by its actor’s server');
  t.equal(status(like(), 'other.example'), 401, 'signed by another server, nothing embedded');
  t.equal(status(like({ signature: { type: 'RsaSignature2017', creator: `${mallory}#main-key` } }), 'relay.example'), 'dropped',
    'forwarded by another server with its actor’s own signature: only that signature may vouch');
  t.equal(status(like({ signature: { type: 'RsaSignature2017', creator: 'https://other.example/key' } }), null), 401, 'an embedded signature by another server');
  t.equal(status(like({ proof: [{ type: 'DataIntegrityProof', verificationMethod: 'https://other.example/key' }] }), null), 401, 'a proof by another server');
  t.equal(status(like({ proof: { type: 'DataIntegrityProof', verificationMethod: `${mallory}#ed25519-key` } }), null), 'taken', 'a proof by the actor’s server');
  t.equal(status(like({ actor: 'https://ours.example/users/1' }), 'ours.example'), 401, 'an actor of ours, from elsewhere');
  t.equal(status(like({ actor: [mallory, 'https://other.example/users/x'] })), 400, 'actors on two servers');
  t.equal(status(like({ actor: 'mallory' })), 400, 'an actor that is not an address');
  t.equal(status(like({ id: 'https://other.example/likes/1' })), 403, 'an activity id on another server');
  t.equal(status('not an object'), 'taken', 'not an activity at all: Fedify answers it');
});

t.test('what is made, edited or deleted is the actor’s', async (t) => {
  const note = (extra: Record<string, unknown> = {}) => ({ id: 'https://m.example/notes/9', type: 'Note', attributedTo: mallory, ...extra });
  t.equal(status(like({ type: 'Create', object: note() })), 'taken');
  t.equal(status(like({ type: 'Create', object: note({ id: 'https://other.example/notes/9' }) })), 403, 'a Create of another server’s Note');
  t.equal(status(like({ type: 'Create', object: note({ attributedTo: 'https://m.example/users/eve' }) })), 403, 'a Create of someone else’s Note');
  t.equal(status(like({ type: 'Update', object: note({ id: 'https://m.example/notes/1' }) })), 'taken', 'her edit of her kept post');
  t.equal(status(like({ type: 'Update', actor: 'https://m.example/users/eve', object: note({ id: 'https://m.example/notes/1', attributedTo: 'https://m.example/users/eve' }) })), 403,
    'eve’s edit of mallory’s kept post');
  t.equal(status(like({ type: 'Delete', actor: 'https://m.example/users/eve', object: 'https://m.example/notes/1' })), 403, 'eve’s Delete of it');
  t.equal(status(like({ type: 'Delete', object: 'https://ours.example/users/1' })), 403, 'a Delete of one of ours');
  t.equal(status(like({ type: 'Delete', object: mallory })), 'taken', 'her Delete of herself');
  t.equal(status(like({ type: 'Undo', object: like({ actor: 'https://m.example/users/eve' }) })), 403, 'an Undo of someone else’s Like');
  t.equal(status(like({ type: 'Undo', object: like() })), 'taken', 'an Undo of her own');
});

t.test('terms renamed or spelled out are refused; a context we do not know is read again', async (t) => {
  t.equal(status(like({ '@context': [AS, { actor: 'https://evil.example/ns#x' }] })), 400, 'a context that renames actor');
  t.equal(status(like({ [`${AS}#actor`]: 'https://other.example/users/x' })), 400, 'the actor spelled as an IRI');
  t.equal(status(like({ object: { ...like(), '@context': { object: 'https://evil.example/ns#y' } } })), 400, 'a renaming in the embedded object');
  t.equal(status(like({ '@context': [AS, 'https://w3id.org/security/v1', { toot: 'http://joinmastodon.org/ns#' }] })), 'taken', 'Mastodon’s contexts');
  t.equal(status(like({ '@context': [AS, 'https://pleroma.example/schemas/litepub-0.1.jsonld'] })), 'recheck', 'a context we do not know');

  const context = async (url: string) => {
    if (url === 'https://evil.example/ctx') return { contextUrl: null, documentUrl: url, document: { '@context': { actor: 'https://evil.example/ns#x', by: { '@id': `${AS}#actor`, '@type': '@id' } } } };
    // ActivityStreams' own context is preloaded in Fedify: nothing is fetched.
    const { createFederation, MemoryKvStore } = await import('@fedify/fedify');
    return createFederation<void>({ kv: new MemoryKvStore() }).createContext(new URL('https://ours.example'), undefined).contextLoader(url);
  };
  t.ok(await sameReading(like(), { actor: mallory, objectId: 'https://ours.example/users/1/posts/2' }, context), 'read the same');
  t.notOk(
    await sameReading(like({ '@context': [AS, 'https://evil.example/ctx'], by: 'https://other.example/users/x' }), { actor: mallory, objectId: 'https://ours.example/users/1/posts/2' }, context),
    'a context that makes another word the actor reads otherwise',
  );
});
