import t from 'tap';
import { Accept, Follow, Note } from '@fedify/vocab';
import { client } from '../api/factories.js';
import { buildTestApp } from '../helpers.js';
import { createPost, makeJpeg, upload } from '../media/upload-helpers.js';
import { eventually, freePort, startPeer, type Peer } from './peer.js';

/**
 * Our comments' Notes answer at their ids (interactions.ts), with their post's visibility: what
 * another server fetching the `inReplyTo` chain, or the id it was sent, gets.
 */

/** Pat, on the peer, asks to follow `actorUri`; resolved once the Follow is sent. */
async function patFollows(peer: Peer, actorUri: string): Promise<Follow> {
  const target = await peer.ctx.lookupObject(actorUri);
  if (!target || !('inboxId' in target)) throw new Error(`no actor at ${actorUri}`);
  const follow = new Follow({ id: new URL(`${peer.origin}/follows/${Date.now()}`), actor: peer.actor, object: new URL(actorUri) });
  await peer.ctx.sendActivity({ identifier: 'pat' }, target as never, follow);
  return follow;
}

t.test('a comment of ours answers as a Note where its post may be seen, and nowhere else', async (t) => {
  const peer = await startPeer(t);
  const stranger = await startPeer(t);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const app = await buildTestApp(t, { FEDERATION: 'on', PUBLIC_URL: origin, FEDERATION_ALLOWED_PRIVATE_HOSTS: `${peer.host},${stranger.host}` });
  await app.app.listen({ port, host: '127.0.0.1' });
  const alice = await app.createUser('alice');
  const bob = await app.createUser('bob');
  const carol = await app.createUser('carol');
  const asBob = client(app.app, bob.token);
  const asCarol = client(app.app, carol.token);
  t.equal((await asCarol('PUT', '/api/account/privacy', { isPrivate: true })).status, 200);
  const photo = async (token: string) => upload(app.app, token, await makeJpeg(320, 240));
  const alicesPost = (await createPost(app.app, alice.token, { s3Key: await photo(alice.token), caption: 'public' })).json().postid as number;
  const anonymous = (await createPost(app.app, alice.token, { s3Key: await photo(alice.token), caption: 'who?', isAnonymous: true })).json().postid as number;
  const carolsPost = (await createPost(app.app, carol.token, { s3Key: await photo(carol.token), caption: 'friends only' })).json().postid as number;
  // Bob follows Carol here, so he may comment on her post.
  await asBob('POST', '/api/account/carol/follow');
  t.equal((await asCarol('POST', '/api/follow-requests/bob/approve')).status, 200);

  const comment = async (postId: number, text: string) => {
    const made = await asBob('POST', '/api/comment', { postId, comment: text });
    t.equal(made.status, 201);
    return made.json.comment_id as number;
  };
  const onPublic = await comment(alicesPost, 'Cold <b>and</b>\ngood');
  const onAnonymous = await comment(anonymous, 'Who is this?');
  const onPrivate = await comment(carolsPost, 'Lucky');
  const url = (commentId: number) => `${origin}/users/${bob.id}/comments/${commentId}`;
  const fetchAs = (commentId: number) => app.app.inject({ url: `/users/${bob.id}/comments/${commentId}`, headers: { accept: 'application/activity+json' } });

  // A public post's comment, to anyone, unsigned.
  const open = await fetchAs(onPublic);
  t.equal(open.statusCode, 200, 'a comment on a public post answers');
  const note = open.json();
  t.equal(note.type, 'Note');
  t.equal(note.id, url(onPublic), 'at its own id');
  t.equal(note.attributedTo, `${origin}/users/${bob.id}`, 'by its author');
  t.equal(note.inReplyTo, `${origin}/users/${alice.id}/posts/${alicesPost}`, 'a reply to the post');
  t.equal(note.content, '<p>Cold &lt;b&gt;and&lt;/b&gt;<br>good</p>', 'its text escaped, never markup');
  t.equal(note.to, 'as:Public', 'public (Fedify writes the Public collection compacted)');
  const read = await stranger.ctx.lookupObject(url(onPublic));
  t.ok(read instanceof Note, "another Fedify reads it as a Note");

  // A comment on an anonymous post: never, whoever asks.
  t.equal((await fetchAs(onAnonymous)).statusCode, 404, 'a comment on an anonymous post does not answer');
  t.equal(await stranger.ctx.lookupObject(url(onAnonymous), { documentLoader: await stranger.ctx.getDocumentLoader({ identifier: 'pat' }) }), null, 'not even signed');

  // A private account's post's comment: only to a signed follower of hers.
  t.equal((await fetchAs(onPrivate)).statusCode, 404, 'unsigned: no');
  const signed = async (p: Peer) => p.ctx.lookupObject(url(onPrivate), { documentLoader: await p.ctx.getDocumentLoader({ identifier: 'pat' }) });
  t.equal(await signed(stranger), null, 'signed by someone who does not follow her: no');
  const follow = await patFollows(peer, `${origin}/users/${carol.id}`);
  await eventually('Carol sees the request', async () => (await asCarol('GET', '/api/follow-requests')).json.length === 1);
  t.equal(await signed(peer), null, 'asked to follow, not yet approved: no');
  t.equal((await asCarol('POST', `/api/follow-requests/${encodeURIComponent(`pat@${peer.host}`)}/approve`)).status, 200);
  await eventually('the Accept reaches Pat', () => peer.received.some((a) => a instanceof Accept && a.objectId?.href === follow.id?.href));
  const seen = await signed(peer);
  t.ok(seen instanceof Note, 'signed by her follower: the Note');
  t.equal((seen as Note).replyTargetId?.href, `${origin}/users/${carol.id}/posts/${carolsPost}`);
  t.same((seen as Note).toIds.map((u) => u.href), [`${origin}/users/${carol.id}`], 'addressed to her alone');

  // Someone else's comment under Bob's path, a deleted comment, a made-up one: nothing.
  t.equal((await app.app.inject({ url: `/users/${alice.id}/comments/${onPublic}`, headers: { accept: 'application/activity+json' } })).statusCode, 404, 'not under another author');
  t.equal((await asBob('DELETE', `/api/comment?commentId=${onPublic}`)).status, 200);
  t.equal((await fetchAs(onPublic)).statusCode, 404, 'deleted: gone');
  t.equal((await fetchAs(999999)).statusCode, 404);
});
