import t from 'tap';
import { client } from '../api/factories.js';
import { buildTestApp } from '../helpers.js';
import { createPost, makeJpeg, upload } from './upload-helpers.js';

t.test("a photo's description: given at create-post, shown in every feed, edited only by its author", async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const asAlice = client(app, alice.token);
  const asBob = client(app, bob.token);

  const described = 'A green bottle on the tiled shelf, <b>steam</b> & "bubbles" \u202Eevil\u202C';
  const res = await createPost(app, alice.token, {
    s3Key: await upload(app, alice.token, await makeJpeg(800, 600)),
    caption: 'Cold one',
    altText: `  ${described}  `,
  });
  t.equal(res.statusCode, 201);
  const post = res.json() as { postid: number; altText: string };
  t.equal(post.altText, 'A green bottle on the tiled shelf, <b>steam</b> & "bubbles" evil', 'trimmed, hidden direction marks dropped, markup kept as text');

  const plain = await createPost(app, alice.token, { s3Key: await upload(app, alice.token, await makeJpeg(80, 60)), caption: 'No words' });
  t.equal((plain.json() as { altText: string }).altText, '', 'none given: empty, present');

  // The feed page writer and the view give it alike, to the author and to others.
  for (const as of [asAlice, asBob]) {
    const feed = (await as('GET', '/api/discover-posts')).json as Array<{ postid: number; altText: string }>;
    t.same(feed.map((p) => p.altText), ['', post.altText]);
  }
  const profile = (await asBob('GET', '/api/view-user-posts?username=alice')).json as { posts: Array<{ altText: string }> };
  t.same(profile.posts.map((p) => p.altText), ['', post.altText]);

  const tooLong = await createPost(app, alice.token, {
    s3Key: await upload(app, alice.token, await makeJpeg(80, 60)),
    caption: 'Long',
    altText: 'x'.repeat(1501),
  });
  t.equal(tooLong.statusCode, 400, 'at most 1,500 characters');
  t.match(tooLong.json(), { error: 'invalid_request', message: /at most 1500/ });
  t.equal((await createPost(app, alice.token, { s3Key: 'x', caption: 'c', altText: 'é'.repeat(1500) })).statusCode, 404, '1,500 are fine (the made-up key is what fails)');

  // Editing: the author only.
  const edited = await asAlice('PATCH', `/api/post?postId=${post.postid}`, { altText: ' Now with a lime wedge ' });
  t.match(edited.json, { postid: post.postid, altText: 'Now with a lime wedge', caption: 'Cold one' });
  // As deleting it: someone else's post is 403, one that is not there 404 (test/api/post-edits.test.ts).
  t.equal((await asBob('PATCH', `/api/post?postId=${post.postid}`, { altText: 'hacked' })).status, 403, "not someone else's");
  t.equal((await asAlice('PATCH', '/api/post?postId=999999', { altText: 'x' })).status, 404);
  t.equal((await asAlice('PATCH', '/api/post?postId=abc', { altText: 'x' })).status, 400);
  t.equal((await asAlice('PATCH', `/api/post?postId=${post.postid}`, { altText: 'y'.repeat(1501) })).status, 400);
  t.equal((await asAlice('PATCH', `/api/post?postId=${post.postid}`, {})).status, 400, 'the body must say it');
  const after = (await asBob('GET', '/api/discover-posts')).json as Array<{ postid: number; altText: string }>;
  t.equal(after.find((p) => p.postid === post.postid)!.altText, 'Now with a lime wedge', 'every feed shows the new one at once');
  t.same((await asAlice('PATCH', `/api/post?postId=${post.postid}`, { altText: '' })).json.altText, '', 'and it can be taken away');
});
