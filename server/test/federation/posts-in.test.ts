import t from 'tap';
import { client } from '../api/factories.js';
import { createPost, makeJpeg, upload } from '../media/upload-helpers.js';
import { eventually } from './peer.js';
import { twoServers } from './two-servers.js';

interface FeedPost {
  postid: number;
  caption: string;
  username: string | null;
  s3Url: string;
  altText: string;
  photos?: Array<{ altText: string; s3Url: string }>;
  sensitive?: { warning: string; blurred: boolean };
}

t.test('the posts of people followed on another server arrive in the Following feed, with their photos, and leave when deleted', async (t) => {
  const { a, b } = await twoServers(t);
  const alice = await a.createUser('alice');
  const erin = await a.createUser('erin');
  const bob = await b.createUser('bob');
  const asAlice = client(a.app, alice.token);
  const asErin = client(a.app, erin.token);
  const asBob = client(b.app, bob.token);
  const bobThere = `bob@${b.host}`;

  // A post of Bob's from before anyone here knew him: once Alice finds him, his profile here
  // shows it (read from his outbox, backfill.ts), and an anonymous one never.
  const early = await createPost(b.app, bob.token, { s3Key: await upload(b.app, bob.token, await makeJpeg(320, 240)), caption: 'before anyone followed' });
  t.equal(early.statusCode, 201);
  const earlyAnonymous = await createPost(b.app, bob.token, { s3Key: await upload(b.app, bob.token, await makeJpeg(320, 240)), caption: 'nobody knew', isAnonymous: true });
  t.equal(earlyAnonymous.statusCode, 201);

  await asAlice('GET', `/api/search-profiles?username=${encodeURIComponent(`${b.origin}/users/${bob.id}`)}`);
  await eventually('his earlier post is on his profile here', async () =>
    (await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(bobThere)}`)).json.postCount === 1);
  const backfilled = (await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(bobThere)}`)).json;
  t.match(backfilled.posts, [{ caption: 'before anyone followed' }], 'the named one, with its caption');
  t.equal(await a.app.federation!.backfill(a.app.database.sqlite.prepare("SELECT id FROM users WHERE username = ?").pluck().get(bobThere) as number), 0,
    'read once: asked again within hours, his outbox is not read again');
  t.match((await asAlice('POST', `/api/account/${encodeURIComponent(bobThere)}/follow`)).json, { requested: true });
  await eventually('Alice follows Bob', async () =>
    (await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(bobThere)}`)).json.isFollowing === true);

  // An anonymous post, then an album marked sensitive with a warning.
  const anonymous = await createPost(b.app, bob.token, { s3Key: await upload(b.app, bob.token, await makeJpeg(320, 240)), caption: 'nobody knows', isAnonymous: true });
  t.equal(anonymous.statusCode, 201);
  const album = await createPost(b.app, bob.token, {
    photos: [
      { s3Key: await upload(b.app, bob.token, await makeJpeg(640, 480)), altText: 'A green bottle on the tiles' },
      { s3Key: await upload(b.app, bob.token, await makeJpeg(480, 640)), altText: 'Steam on the mirror' },
    ],
    caption: 'Sunday #showerbeer\nwith a view',
    sensitive: true,
    contentWarning: 'Wet feet',
  });
  t.equal(album.statusCode, 201);

  let feed: FeedPost[] = [];
  await eventually('the album is in Alice\'s Following feed', async () => {
    feed = (await asAlice('GET', '/api/followFeed')).json as FeedPost[];
    return feed.some((p) => p.caption.startsWith('Sunday'));
  });
  t.same(feed.map((p) => p.caption), ['Sunday #showerbeer\nwith a view', 'before anyone followed'], 'newest first; the anonymous ones never');
  const post = feed[0]!;
  t.equal(post.username, bobThere, 'by bob@host');
  t.equal(post.caption, 'Sunday #showerbeer\nwith a view', 'the caption as text, its line kept');
  t.same(post.sensitive, { warning: 'Wet feet', blurred: true }, 'marked sensitive, with the warning, blurred for her');
  const photo = await asAlice('GET', `/api/post-photo?postId=${post.postid}`);
  t.equal(photo.status, 200);
  t.same(photo.json.photos.map((p: { altText: string }) => p.altText), ['A green bottle on the tiles', 'Steam on the mirror'], 'both photos with their descriptions, in order');
  for (const p of photo.json.photos as Array<{ s3Url: string; width: number; height: number }>) {
    t.match(p.s3Url, /^\/media\/[A-Za-z0-9_-]{22}\/display\.webp$/, 'served from this server, never from the other');
    const image = await a.app.inject({ url: p.s3Url });
    t.equal(image.statusCode, 200);
    t.equal(image.headers['content-type'], 'image/webp');
  }
  t.same(
    (photo.json.photos as Array<{ width: number; height: number }>).map((p) => [p.width, p.height]),
    [[640, 480], [480, 640]],
    'their sizes kept',
  );
  t.equal(((await asErin('GET', '/api/followFeed')).json as FeedPost[]).length, 0, 'not in the feed of someone who does not follow him');
  const profile = await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(bobThere)}`);
  t.equal(profile.json.postCount, 2, 'on his profile here, with the earlier one');

  // He edits it: the caption, a description and the warning change here too.
  const bobsPostId = album.json().postid as number;
  const edit = await asBob('PATCH', `/api/post?postId=${bobsPostId}`, {
    caption: 'Sunday #showerbeer, edited',
    photos: [{ index: 1, altText: 'Steam on the big mirror' }],
    sensitive: true,
    contentWarning: 'Very wet feet',
  });
  t.equal(edit.status, 200);
  await eventually('the edit arrives', async () =>
    ((await asAlice('GET', '/api/followFeed')).json as FeedPost[])[0]?.caption === 'Sunday #showerbeer, edited');
  const [edited] = (await asAlice('GET', '/api/followFeed')).json as Array<FeedPost & { editedAt: string | null }>;
  t.ok(edited!.editedAt, 'shown as edited');
  t.same(edited!.sensitive, { warning: 'Very wet feet', blurred: true }, 'the new warning');
  const editedPhotos = await asAlice('GET', `/api/post-photo?postId=${post.postid}`);
  t.same(editedPhotos.json.photos.map((p: { altText: string }) => p.altText), ['A green bottle on the tiles', 'Steam on the big mirror'], 'the new description');

  // He deletes it: gone here too.
  t.equal((await asBob('DELETE', `/api/post?postId=${bobsPostId}`)).status, 200);
  await eventually('the post is gone from Alice\'s feed', async () =>
    !((await asAlice('GET', '/api/followFeed')).json as FeedPost[]).some((p) => p.caption.startsWith('Sunday')));
  t.equal(a.app.database.sqlite.prepare('SELECT count(*) FROM posts').pluck().get(), 1, 'and from the database: only the earlier one is left');
  t.equal(a.app.database.sqlite.prepare('SELECT count(*) FROM remote_posts').pluck().get(), 1);
});

t.test('a private account\'s posts reach its approved followers on another server', async (t) => {
  const { a, b } = await twoServers(t);
  const alice = await a.createUser('alice');
  const carol = await b.createUser('carol');
  const asAlice = client(a.app, alice.token);
  const asCarol = client(b.app, carol.token);
  t.equal((await asCarol('PUT', '/api/account/privacy', { isPrivate: true })).status, 200);
  const carolThere = `carol@${b.host}`;
  const aliceHere = `alice@${a.host}`;
  await asAlice('GET', `/api/search-profiles?username=${encodeURIComponent(`${b.origin}/users/${carol.id}`)}`);
  await asAlice('POST', `/api/account/${encodeURIComponent(carolThere)}/follow`);
  await eventually('Carol sees the request', async () =>
    (await asCarol('GET', '/api/follow-requests')).json.some((r: { username: string }) => r.username === aliceHere));
  await asCarol('POST', `/api/follow-requests/${encodeURIComponent(aliceHere)}/approve`);
  await eventually('Alice follows Carol', async () =>
    (await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(carolThere)}`)).json.isFollowing === true);
  const post = await createPost(b.app, carol.token, { s3Key: await upload(b.app, carol.token, await makeJpeg(320, 240)), caption: 'friends only', altText: 'A can' });
  t.equal(post.statusCode, 201);
  await eventually('it arrives', async () => ((await asAlice('GET', '/api/followFeed')).json as FeedPost[]).length === 1);
  const [arrived] = (await asAlice('GET', '/api/followFeed')).json as FeedPost[];
  t.equal(arrived!.caption, 'friends only');
  t.equal(arrived!.altText, 'A can');
});

t.test('likes and comments cross servers: on their post from here, shown there with name@host, and taken back', async (t) => {
  const { a, b } = await twoServers(t);
  const alice = await a.createUser('alice');
  const bob = await b.createUser('bob');
  const asAlice = client(a.app, alice.token);
  const asBob = client(b.app, bob.token);
  const bobThere = `bob@${b.host}`;
  const aliceHere = `alice@${a.host}`;
  await asAlice('GET', `/api/search-profiles?username=${encodeURIComponent(`${b.origin}/users/${bob.id}`)}`);
  await asAlice('POST', `/api/account/${encodeURIComponent(bobThere)}/follow`);
  await eventually('Alice follows Bob', async () =>
    (await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(bobThere)}`)).json.isFollowing === true);
  const made = await createPost(b.app, bob.token, { s3Key: await upload(b.app, bob.token, await makeJpeg(320, 240)), caption: 'cheers' });
  const bobsPost = made.json().postid as number;
  let here: FeedPost[] = [];
  await eventually('his post reaches her', async () => {
    here = (await asAlice('GET', '/api/followFeed')).json as FeedPost[];
    return here.length === 1;
  });
  const postHere = here[0]!.postid;

  // She likes it and comments on her server: his server has both, by alice@host, and tells him.
  t.equal((await asAlice('POST', '/api/like', { postId: postHere })).status, 201);
  const commented = await asAlice('POST', '/api/comment', { postId: postHere, comment: 'Looks cold <b>and</b> good' });
  t.equal(commented.status, 201);
  await eventually('the like is on his post there', async () => (await asBob('GET', `/api/like?postId=${bobsPost}`)).json.likeCount === 1);
  let comments: Array<{ username: string; content: string }> = [];
  await eventually('the comment is on his post there', async () => {
    comments = (await asBob('GET', `/api/comment?postId=${bobsPost}`)).json;
    return comments.length === 1;
  });
  t.equal(comments[0]!.username, aliceHere, 'by alice@host');
  t.equal(comments[0]!.content, 'Looks cold <b>and</b> good', 'her words as she wrote them, as text');
  const bell = JSON.stringify((await asBob('GET', '/api/notifications')).json);
  t.ok(bell.includes(aliceHere), 'his bell names her');
  t.ok((await asBob('GET', '/api/notifications/unread')).json.unread >= 2, 'a like and a comment unread');

  // Taken back here, taken back there.
  t.equal((await asAlice('DELETE', `/api/like?postId=${postHere}`)).status, 200);
  await eventually('the like is gone there', async () => (await asBob('GET', `/api/like?postId=${bobsPost}`)).json.likeCount === 0);
  const commentId = commented.json.comment_id as number;
  t.equal((await asAlice('DELETE', `/api/comment?commentId=${commentId}`)).status, 200);
  await eventually('the comment is gone there', async () => (await asBob('GET', `/api/comment?postId=${bobsPost}`)).json.length === 0);
  t.equal(b.app.database.sqlite.prepare('SELECT count(*) FROM remote_comments').pluck().get(), 0, 'nothing kept of it');
});
