import t from 'tap';
import sharp from 'sharp';
import { Accept, Create, Delete, Follow, Hashtag, Image, Mention, Note, PUBLIC_COLLECTION, Tombstone, Update, type Activity } from '@fedify/vocab';
import { client } from '../api/factories.js';
import { buildTestApp, type Teardown } from '../helpers.js';
import { createPost, makeJpeg, upload } from '../media/upload-helpers.js';
import { eventually, freePort, startPeer, type Peer } from './peer.js';

/** Our server on loopback, federating with `peer` (the only private host it may reach). */
async function ourServer(t: Teardown, peer: Peer) {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const app = await buildTestApp(t, { FEDERATION: 'on', PUBLIC_URL: origin, FEDERATION_ALLOWED_PRIVATE_HOSTS: peer.host });
  await app.app.listen({ port, host: '127.0.0.1' });
  return { ...app, origin };
}

/** Pat, on the peer, follows `actorUri` on our server, and waits for the Accept. */
async function patFollows(peer: Peer, actorUri: string): Promise<void> {
  const target = await peer.ctx.lookupObject(actorUri);
  if (!target || !('inboxId' in target)) throw new Error(`no actor at ${actorUri}`);
  const follow = new Follow({ id: new URL(`${peer.origin}/follows/${Date.now()}`), actor: peer.actor, object: new URL(actorUri) });
  await peer.ctx.sendActivity({ identifier: 'pat' }, target as never, follow);
  await eventually('the Follow is accepted', () =>
    peer.received.some((a) => a instanceof Accept && a.objectId?.href === follow.id?.href));
}

const creates = (peer: Peer) => peer.received.filter((a): a is Create => a instanceof Create);

async function objectOf(activity: Activity): Promise<Note> {
  const note = await activity.getObject();
  if (!(note instanceof Note)) throw new Error('not a Note');
  return note;
}

t.test('a named album goes to followers on other servers as a Create of a Note with its photos, tags and warning', async (t) => {
  const peer = await startPeer(t);
  const our = await ourServer(t, peer);
  const alice = await our.createUser('alice');
  const asAlice = client(our.app, alice.token);
  await our.createUser('bob');
  await patFollows(peer, `${our.origin}/users/${alice.id}`);
  t.same((await asAlice('GET', '/api/account/alice/followers')).json.map((f: { username: string }) => f.username), [`pat@${peer.host}`]);

  // An anonymous post first: it must never leave; then an album of five, sensitive, with a warning.
  const anonymous = await createPost(our.app, alice.token, { s3Key: await upload(our.app, alice.token, await makeJpeg(320, 240)), caption: 'who wrote this', isAnonymous: true });
  t.equal(anonymous.statusCode, 201);
  const photos = [];
  for (const altText of ['A cold can', 'Steam', 'The tiles', 'A towel', 'Empty can']) {
    photos.push({ s3Key: await upload(our.app, alice.token, await makeJpeg(400, 300)), altText });
  }
  const album = await createPost(our.app, alice.token, {
    photos,
    caption: 'Friday #ShowerBeer with @bob <3',
    sensitive: true,
    contentWarning: 'Bare shoulders',
  });
  t.equal(album.statusCode, 201);
  const postId = album.json().postid as number;

  await eventually('the album arrives', () => creates(peer).length > 0);
  const create = creates(peer)[0]!;
  t.equal(creates(peer).length, 1, 'one Create: the anonymous post, made first, never arrived');
  const note = await objectOf(create);
  t.equal(note.id?.href, `${our.origin}/users/${alice.id}/posts/${postId}`);
  t.equal(create.actorId?.href, `${our.origin}/users/${alice.id}`);
  t.equal(note.attributionId?.href, `${our.origin}/users/${alice.id}`);
  t.same(note.toIds.map((u) => u.href), [PUBLIC_COLLECTION.href], 'to the Public collection');
  t.same(note.ccIds.map((u) => u.href), [`${our.origin}/users/${alice.id}/followers`], 'followers in cc');
  t.equal(note.sensitive, true, 'sensitive');
  t.equal(note.summary?.toString(), 'Bare shoulders', 'the warning as summary');
  const content = note.content?.toString() ?? '';
  t.match(content, /Friday <a href="[^"]+\/app\/tag\/showerbeer" class="mention hashtag" rel="tag">#<span>ShowerBeer<\/span><\/a>/, 'the tag linked');
  t.match(content, /&lt;3/, 'the caption escaped, never markup');
  t.match(content, /1 of 5 photos, <a href="[^"]+\/app\/profile\/alice">see all<\/a>/, 'more than Mastodon shows: said, with a link');

  const attachments = [];
  for await (const a of note.getAttachments()) attachments.push(a);
  t.equal(attachments.length, 5, 'every photo, in order');
  t.ok(attachments.every((a) => a instanceof Image), 'each an Image');
  const images = attachments as Image[];
  t.same(images.map((i) => i.name?.toString()), ['A cold can', 'Steam', 'The tiles', 'A towel', 'Empty can'], 'alt text as name');
  t.ok(images.every((i) => i.mediaType === 'image/jpeg' && i.width === 400 && i.height === 300), 'JPEG, with its size');
  const jpeg = await fetch((images[0]!.url as URL).href);
  t.equal(jpeg.status, 200, 'the photo can be fetched');
  t.equal(jpeg.headers.get('content-type'), 'image/jpeg');
  t.equal((await sharp(Buffer.from(await jpeg.arrayBuffer())).metadata()).format, 'jpeg', 'and is a JPEG');

  const tags = [];
  for await (const tag of note.getTags()) tags.push(tag);
  t.ok(tags.some((x) => x instanceof Hashtag && x.name?.toString() === '#showerbeer'), 'a Hashtag tag');
  t.ok(tags.some((x) => x instanceof Mention && x.name?.toString().startsWith('@bob@')), 'a Mention of bob');

  // The object itself: fetched by another server, the same Note.
  const fetched = await peer.ctx.lookupObject(note.id!.href);
  t.ok(fetched instanceof Note, 'the Note is served at its id');
  t.equal((fetched as Note).summary?.toString(), 'Bare shoulders');
  const anonymousId = anonymous.json().postid as number;
  t.equal(await peer.ctx.lookupObject(`${our.origin}/users/${alice.id}/posts/${anonymousId}`), null, 'the anonymous post is not served under her');

  // Her outbox: the album's Create, newest first, in pages; the anonymous post is not there.
  const ap = { accept: 'application/activity+json' };
  const outbox = (await (await fetch(`${our.origin}/users/${alice.id}/outbox`, { headers: ap })).json()) as { totalItems: number; first: string };
  t.equal(outbox.totalItems, 1, 'her outbox counts her named post only');
  const firstPage = (await (await fetch(outbox.first, { headers: ap })).json()) as { orderedItems: Array<{ type: string; object: { id: string } }> };
  t.same(firstPage.orderedItems.map((i) => [i.type, i.object.id]), [['Create', note.id!.href]], 'and lists its Create');

  // An edit: Update with the whole Note and a newer `updated`.
  t.equal((await asAlice('PATCH', `/api/post?postId=${postId}`, { caption: 'Friday, edited' })).status, 200);
  await eventually('the Update arrives', () => peer.received.some((a) => a instanceof Update));
  const update = peer.received.find((a): a is Update => a instanceof Update)!;
  const updated = await objectOf(update);
  t.equal(updated.id?.href, note.id?.href, 'of the same Note');
  t.match(updated.content?.toString(), /Friday, edited/);
  t.ok(updated.updated && note.published && updated.updated.epochMilliseconds > note.published.epochMilliseconds, 'updated later than published');

  // A deletion: Delete of a Tombstone, and the Note answers 410.
  t.equal((await asAlice('DELETE', `/api/post?postId=${postId}`)).status, 200);
  await eventually('the Delete arrives', () => peer.received.some((a) => a instanceof Delete));
  const deletion = peer.received.find((a): a is Delete => a instanceof Delete)!;
  const tombstone = await deletion.getObject();
  t.ok(tombstone instanceof Tombstone, 'a Tombstone');
  t.equal(tombstone?.id?.href, note.id?.href);
  const gone = await fetch(note.id!.href, { headers: { accept: 'application/activity+json' } });
  t.equal(gone.status, 410, 'the post answers 410 Gone');
  t.equal(creates(peer).length, 1, 'and the anonymous post never arrived');
});

t.test('a private account\'s post goes to its followers only, and is not served to anyone', async (t) => {
  const peer = await startPeer(t);
  const our = await ourServer(t, peer);
  const carol = await our.createUser('carol');
  const asCarol = client(our.app, carol.token);
  await patFollows(peer, `${our.origin}/users/${carol.id}`);
  t.equal((await asCarol('PUT', '/api/account/privacy', { isPrivate: true })).status, 200);
  const post = await createPost(our.app, carol.token, { s3Key: await upload(our.app, carol.token, await makeJpeg(320, 240)), caption: 'for friends' });
  t.equal(post.statusCode, 201);
  await eventually('the post arrives at her follower', () => creates(peer).length > 0);
  const note = await objectOf(creates(peer)[0]!);
  t.same(note.toIds.map((u) => u.href), [`${our.origin}/users/${carol.id}/followers`], 'to her followers');
  t.same(note.ccIds, [], 'and nobody else');
  t.notOk(note.toIds.some((u) => u.href === PUBLIC_COLLECTION.href), 'not public');
  t.equal(await peer.ctx.lookupObject(note.id!.href), null, 'a fetch of it is refused');
});

t.test('with no followers on other servers, nothing is queued', async (t) => {
  const peer = await startPeer(t);
  const our = await ourServer(t, peer);
  const dave = await our.createUser('dave');
  const post = await createPost(our.app, dave.token, { s3Key: await upload(our.app, dave.token, await makeJpeg(320, 240)), caption: 'just us' });
  t.equal(post.statusCode, 201);
  const sqlite = our.app.database.sqlite;
  t.equal(sqlite.prepare('SELECT count(*) FROM federation_post_events').pluck().get(), 0, 'no event written');
  t.equal(sqlite.prepare('SELECT count(*) FROM federated_posts').pluck().get(), 0);
  const gone = await fetch(`${our.origin}/users/${dave.id}/posts/${post.json().postid}`, { headers: { accept: 'application/activity+json' } });
  t.equal(gone.status, 200, 'the public post is still served to whoever fetches it');
});

t.test('a removed account sends the Delete of its actor, which answers 410 Gone from then on', async (t) => {
  const peer = await startPeer(t);
  const our = await ourServer(t, peer);
  const erin = await our.createUser('erin');
  const actor = `${our.origin}/users/${erin.id}`;
  await patFollows(peer, actor);
  const removed = await client(our.app, erin.token)('DELETE', '/api/account', { confirmUsername: 'erin' });
  t.equal(removed.status, 200);
  await eventually('the Delete of her actor arrives', () => peer.received.some((a) => a instanceof Delete && a.objectId?.href === actor));
  const deletion = peer.received.find((a): a is Delete => a instanceof Delete)!;
  t.equal(deletion.actorId?.href, actor, 'signed as her, whose signature the peer checked');
  const gone = await fetch(actor, { headers: { accept: 'application/activity+json' } });
  t.equal(gone.status, 410, 'her actor answers 410 Gone');
  t.equal(((await gone.json()) as { type: string }).type, 'Tombstone');
  t.equal(our.app.database.sqlite.prepare('SELECT count(*) FROM federation_actor_deletions').pluck().get(), 0, 'sent, and not kept');
});
