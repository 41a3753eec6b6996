import sharp from 'sharp';
import t from 'tap';
import { client } from '../api/factories.js';
import { buildTestApp } from '../helpers.js';
import { createPost, makeJpeg, upload } from '../media/upload-helpers.js';
import { eventually, freePort, startFixturePeer } from './peer.js';

/**
 * Issue 49, "Real shapes from elsewhere": Mastodon's and Pixelfed's own JSON (fixtures/, each
 * file's source in fixtures/README.md), signed by a peer with none of our code and delivered to
 * one of our servers, then read back through the app's API as a person here sees it.
 */

interface FeedPost {
  postid: number;
  caption: string;
  username: string | null;
  sensitive?: { warning: string; blurred: boolean };
}

interface Expect {
  name: string;
  caption: string;
  warning: string;
  altTexts: string[];
  sizes: Array<[number, number]>;
  tags: string[];
  comment: string;
  editedCaption: string;
  editedAltTexts: string[];
  /** The warning after the edit: null when the edit took the sensitive mark away. */
  editedWarning: string | null;
}

const shapes: Record<'mastodon' | 'pixelfed', Expect> = {
  mastodon: {
    name: 'foo',
    caption: 'Sunday at the lake #showerbeer @alice\n\nthree cans, one view & cold feet',
    warning: 'Bare feet',
    altTexts: ['A can of beer on the dock, lake behind', 'Two feet in the cold water', ''],
    sizes: [[640, 480], [480, 640], [320, 320]],
    tags: ['showerbeer'],
    comment: '@alice A cold one for me too #cheers',
    editedCaption: 'Sunday at the lake, edited #showerbeer',
    editedAltTexts: ['A can of beer on the dock, lake behind', 'Two feet in the very cold water', ''],
    editedWarning: 'Very bare feet',
  },
  pixelfed: {
    name: 'pat',
    caption: 'Lake day, four cans deep #showerbeer #summer',
    warning: 'Nudity: feet',
    altTexts: ['Four cans in a row on the jetty', '', 'Sunset over the water'],
    sizes: [[640, 480], [480, 640], [400, 300]],
    tags: ['showerbeer', 'summer'],
    comment: '@alice@HOST nice <3 #cheers',
    editedCaption: 'Lake day, five cans deep #showerbeer #summer',
    editedAltTexts: ['Five cans in a row on the jetty', '', 'Sunset over the water'],
    editedWarning: null,
  },
};

/** The photos a Note names, as the images the peer serves at those paths, in the sizes the Note gives (or 400x300). */
async function serveAttachments(images: Map<string, Buffer>, activity: Record<string, unknown>): Promise<void> {
  const note = activity.object as { attachment: Array<{ url: string; width?: number; height?: number }> };
  const sizes = [[640, 480], [480, 640], [400, 300]] as const;
  for (const [i, a] of note.attachment.entries()) {
    const [w, h] = [a.width ?? sizes[i]![0], a.height ?? sizes[i]![1]];
    const path = new URL(a.url).pathname;
    images.set(path, path.endsWith('.png') ? await sharp(await makeJpeg(w, h)).png().toBuffer() : await makeJpeg(w, h));
  }
}

for (const flavour of ['mastodon', 'pixelfed'] as const) {
  t.test(`${flavour}'s own JSON: its actor, an album, a reply, a like, an edit, a delete and the account's removal`, async (t) => {
    const expect = shapes[flavour];
    const port = await freePort();
    const ours = { origin: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}`, aliceId: 0 };
    const peer = await startFixturePeer(t, flavour, ours);
    const app = await buildTestApp(t, { FEDERATION: 'on', PUBLIC_URL: ours.origin, FEDERATION_ALLOWED_PRIVATE_HOSTS: peer.host });
    await app.app.listen({ port, host: '127.0.0.1' });
    const alice = await app.createUser('alice');
    ours.aliceId = alice.id;
    const asAlice = client(app.app, alice.token);
    const inbox = `${ours.origin}/users/${alice.id}/inbox`;
    const sharedInbox = `${ours.origin}/inbox`;
    const made = await createPost(app.app, alice.token, { s3Key: await upload(app.app, alice.token, await makeJpeg(320, 240)), caption: 'cheers from here' });
    const alicesPost = made.json().postid as number;

    // Their actor, found by its URL: named name@host, with their picture.
    const icon = new URL((peer.fixture('actor').icon as { url: string }).url).pathname;
    peer.images.set(icon, icon.endsWith('.png') ? await sharp(await makeJpeg(300, 300)).png().toBuffer() : await makeJpeg(300, 300));
    const them = `${expect.name}@${peer.host}`;
    const search = await asAlice('GET', `/api/search-profiles?username=${encodeURIComponent(peer.actor)}`);
    t.equal(search.status, 200);
    t.equal(search.json[0]?.username, them, `${flavour}'s actor is found and shown as name@host`);
    const profile = await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(them)}`);
    t.equal(profile.status, 200, 'their profile opens');
    t.equal(profile.json.username, them);
    let picture: string | null = null;
    await eventually('their picture is here', async () => {
      picture = (await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(them)}`)).json.profilePictureUrl as string | null;
      return picture !== null;
    });
    t.match(picture, /^\/media\/[A-Za-z0-9_-]{22}\//, 'their picture, served from here');
    const pictureImage = await app.app.inject({ url: picture! });
    t.equal(pictureImage.statusCode, 200);
    t.equal(pictureImage.headers['content-type'], 'image/webp');

    // Alice follows; their server answers with its own Accept.
    t.match((await asAlice('POST', `/api/account/${encodeURIComponent(them)}/follow`)).json, { requested: true });
    await eventually('our Follow reaches their inbox', () => peer.received.some((r) => r.json.type === 'Follow'));
    const follow = peer.received.find((r) => r.json.type === 'Follow')!.json;
    t.equal(follow.object, peer.actor, 'our Follow names their actor');
    const accept = JSON.parse(JSON.stringify(peer.fixture('accept')).replace('__FOLLOW_ID__', follow.id as string)) as Record<string, unknown>;
    t.equal(await peer.deliver(inbox, accept), 202);
    await eventually('Alice follows them', async () =>
      (await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(them)}`)).json.isFollowing === true);

    // Their album of three, to the shared inbox as both send to followers.
    const create = peer.fixture('create-photos');
    await serveAttachments(peer.images, create);
    t.equal(await peer.deliver(sharedInbox, create), 202, 'the Create is taken');
    let feed: FeedPost[] = [];
    await eventually('the album is in the Following feed', async () => {
      feed = (await asAlice('GET', '/api/followFeed')).json as FeedPost[];
      return feed.length === 1;
    });
    const post = feed[0]!;
    t.equal(post.username, them, 'by name@host');
    t.equal(post.caption, expect.caption, 'the caption as text: links reduced to their words, entities decoded, no markup');
    t.same(post.sensitive, { warning: expect.warning, blurred: true }, 'the content warning, blurred');
    const photos = (await asAlice('GET', `/api/post-photo?postId=${post.postid}`)).json.photos as Array<{ altText: string; width: number; height: number; s3Url: string }>;
    t.same(photos.map((p) => p.altText), expect.altTexts, 'all three photos in order, with their descriptions');
    t.same(photos.map((p) => [p.width, p.height]), expect.sizes, 'their sizes');
    for (const p of photos) t.match(p.s3Url, /^\/media\/[A-Za-z0-9_-]{22}\/display\.webp$/, 'served from here');
    for (const tag of expect.tags) {
      const tagged = (await asAlice('GET', `/api/hashtags/${tag}`)).json as FeedPost[];
      t.ok(tagged.some((p) => p.postid === post.postid), `on the page of #${tag}`);
    }

    // A reply to Alice's post: a comment by name@host, its mention kept as words.
    t.equal(await peer.deliver(inbox, peer.fixture('reply', alicesPost)), 202);
    let comments: Array<{ username: string; content: string }> = [];
    await eventually('the reply is a comment', async () => {
      comments = (await asAlice('GET', `/api/comment?postId=${alicesPost}`)).json;
      return comments.length === 1;
    });
    t.equal(comments[0]!.username, them, 'by name@host');
    t.equal(comments[0]!.content, expect.comment.replace('HOST', ours.host), 'its text, no markup');

    // A like: counted, and in Alice's bell.
    t.equal(await peer.deliver(inbox, peer.fixture('like', alicesPost)), 202);
    await eventually('the like is counted', async () => (await asAlice('GET', `/api/like?postId=${alicesPost}`)).json.likeCount === 1);
    const bell = JSON.stringify((await asAlice('GET', '/api/notifications')).json);
    t.ok(bell.includes(them), 'her bell names them');
    t.ok((await asAlice('GET', '/api/notifications/unread')).json.unread >= 2, 'a comment and a like unread');
    // Taken back (their Undo, the Like embedded), then liked again (a new Like of theirs).
    t.equal(await peer.deliver(inbox, peer.fixture('undo-like', alicesPost)), 202);
    await eventually('the like is taken back', async () => (await asAlice('GET', `/api/like?postId=${alicesPost}`)).json.likeCount === 0);
    const likeAgain = peer.fixture('like', alicesPost);
    likeAgain.id = `${likeAgain.id as string}0`;
    t.equal(await peer.deliver(inbox, likeAgain), 202);
    await eventually('liked again', async () => (await asAlice('GET', `/api/like?postId=${alicesPost}`)).json.likeCount === 1);

    // Their edit: caption, descriptions and warning follow.
    t.equal(await peer.deliver(sharedInbox, peer.fixture('update')), 202);
    await eventually('the edit arrives', async () => ((await asAlice('GET', '/api/followFeed')).json as FeedPost[])[0]?.caption === expect.editedCaption);
    const [edited] = (await asAlice('GET', '/api/followFeed')).json as FeedPost[];
    if (expect.editedWarning === null) t.notOk(edited!.sensitive, 'no longer marked sensitive');
    else t.same(edited!.sensitive, { warning: expect.editedWarning, blurred: true }, 'the new warning');
    const editedPhotos = (await asAlice('GET', `/api/post-photo?postId=${post.postid}`)).json.photos as Array<{ altText: string }>;
    t.same(editedPhotos.map((p) => p.altText), expect.editedAltTexts, 'the new descriptions');

    // Their delete: gone from the feed, and the post answers as gone.
    t.equal(await peer.deliver(sharedInbox, peer.fixture('delete')), 202);
    await eventually('the post leaves the feed', async () => ((await asAlice('GET', '/api/followFeed')).json as FeedPost[]).length === 0);
    t.equal((await asAlice('GET', `/api/post-photo?postId=${post.postid}`)).status, 404, 'the post is gone');

    // Their account is removed there. Before that: they follow Alice, and post again (the same
    // album under another id), which Alice likes and comments on.
    t.equal(await peer.deliver(sharedInbox, peer.fixture('follow')), 202);
    const followsHer = async () =>
      ((await asAlice('GET', '/api/account/alice/followers')).json as Array<{ username: string }>).some((f) => f.username === them);
    await eventually('they follow Alice', followsHer);
    // Their Undo of it (Pixelfed's names its Follow by another id than the one it sent), then a new Follow.
    t.equal(await peer.deliver(sharedInbox, peer.fixture('undo-follow')), 202);
    await eventually('they no longer follow her', async () => !(await followsHer()));
    const followAgain = peer.fixture('follow');
    followAgain.id = `${followAgain.id as string}0`;
    t.equal(await peer.deliver(sharedInbox, followAgain), 202);
    await eventually('they follow Alice again', followsHer);
    const noteId = (create.object as { id: string }).id;
    const again = JSON.parse(JSON.stringify(create).replaceAll(noteId, `${noteId}0`)) as Record<string, unknown>;
    t.equal(await peer.deliver(sharedInbox, again), 202);
    await eventually('their second post arrives', async () => ((await asAlice('GET', '/api/followFeed')).json as FeedPost[]).length === 1);
    const [second] = (await asAlice('GET', '/api/followFeed')).json as FeedPost[];
    t.equal((await asAlice('POST', '/api/like', { postId: second!.postid })).status, 201);
    t.equal((await asAlice('POST', '/api/comment', { postId: second!.postid, comment: 'Where is this?' })).status, 201);
    // Her comment reaches their server as a reply, and its id answers there for anyone to fetch.
    let sent: Record<string, unknown> | undefined;
    await eventually('her comment reaches their inbox', () => {
      sent = peer.received.map((r) => r.json).find((a) => a.type === 'Create' && (a.object as { inReplyTo?: string }).inReplyTo === `${noteId}0`);
      return sent !== undefined;
    });
    const replyId = (sent!.object as { id: string }).id;
    const fetched = await fetch(replyId, { headers: { accept: 'application/activity+json' } });
    t.equal(fetched.status, 200, "her reply's id answers");
    t.match(await fetched.json(), { type: 'Note', id: replyId, inReplyTo: `${noteId}0`, content: '<p>Where is this?</p>' });

    // Their Delete of their actor, sent as their server sends it once the account is gone (its
    // document answers 410; Mastodon adds a Linked Data Signature). Someone else's Delete of them counts for nothing.
    const stranger = peer.fixture('delete-actor');
    stranger.object = `${ours.origin}/users/${alice.id}`;
    stranger.id = `${stranger.id as string}/of-someone-else`;
    t.equal(await peer.deliver(sharedInbox, stranger), 403, 'a Delete of an actor of another server is refused (inbox-guard.ts)');
    const deleteActor = peer.fixture('delete-actor');
    peer.gone();
    t.equal(await peer.deliver(sharedInbox, deleteActor, { httpSignature: false }), 401, 'an unsigned Delete of them is refused');
    t.equal((await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(them)}`)).status, 200, 'and changes nothing');
    if (flavour === 'mastodon') {
      // Mastodon signs it twice; here only its Linked Data Signature vouches for it, as when it is relayed.
      t.equal(await peer.deliver(sharedInbox, await peer.ldSign(deleteActor), { httpSignature: false }), 202, 'their Delete is taken on its LD signature');
    } else {
      t.equal(await peer.deliver(sharedInbox, deleteActor), 202, 'their Delete is taken');
    }
    await eventually('they are gone', async () => (await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(them)}`)).status === 404);
    t.equal(((await asAlice('GET', '/api/followFeed')).json as FeedPost[]).length, 0, 'their posts leave the feed');
    t.equal((await asAlice('GET', `/api/post-photo?postId=${second!.postid}`)).status, 404, 'and are gone, with their photos');
    t.equal((await asAlice('GET', `/api/comment?postId=${alicesPost}`)).json.length, 0, 'their comment on her post is gone');
    t.equal((await asAlice('GET', `/api/like?postId=${alicesPost}`)).json.likeCount, 0, 'their like is gone');
    t.equal((await asAlice('GET', '/api/account/alice/followers')).json.length, 0, 'they no longer follow her');
    const herself = (await asAlice('GET', '/api/view-user-posts?username=alice')).json as { followerCount: number; followingCount: number };
    t.same([herself.followerCount, herself.followingCount], [0, 0], 'nor she them: her counts say so');
    t.notOk(JSON.stringify((await asAlice('GET', '/api/notifications')).json).includes(them), 'her bell no longer names them');
    t.equal((await asAlice('GET', `/api/search-profiles?username=${encodeURIComponent(them.split('@')[0]!)}`)).json.length, 0, 'search finds no one');
    const sqlite = app.app.database.sqlite;
    t.equal(sqlite.prepare('SELECT count(*) FROM remote_actors').pluck().get(), 0, 'their actor is forgotten');
    t.equal(sqlite.prepare('SELECT count(*) FROM posts WHERE user_id <> ?').pluck().get(alice.id), 0, 'no post of theirs is left');
    t.equal(sqlite.prepare('SELECT count(*) FROM users WHERE host IS NOT NULL AND deleted_at IS NULL').pluck().get(), 0, 'their row is marked removed, as a local one is');
    t.equal(sqlite.prepare('SELECT count(*) FROM users WHERE id = ? AND deleted_at IS NULL').pluck().get(alice.id), 1, 'Alice, whom the stranger named, is untouched');
  });
}

t.test('a script in a caption from elsewhere is never shown as markup, nor its code as words', async (t) => {
  const { htmlToText } = await import('../../src/federation/remote-posts.js');
  t.equal(htmlToText('<p>Hi<script>alert(1)</script> <b>there</b></p><style>p{}</style>'), 'Hi there');
  t.equal(htmlToText('<p>a &lt;script&gt; b</p>'), 'a <script> b', 'escaped text stays text, as words');
});
