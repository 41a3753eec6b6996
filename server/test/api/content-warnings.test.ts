import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import t from 'tap';
import { client, insertPost } from './factories.js';
import { buildTestApp } from '../helpers.js';
import { createPost, makeJpeg, upload } from '../media/upload-helpers.js';

interface FeedPost {
  postid: number;
  s3Url: string;
  thumbnailUrl: string;
  mediumUrl: string | null;
  altText: string;
  photos?: Array<{ s3Url: string }>;
  sensitive?: { warning: string; blurred: boolean };
}

const inFeed = async (as: ReturnType<typeof client>, postId: number) =>
  ((await as('GET', '/api/discover-posts')).json as FeedPost[]).find((p) => p.postid === postId);

/** Every URL an answer carries, as text: what a viewer could fetch from it. */
const urlsIn = (value: unknown) => JSON.stringify(value).match(/\/media\/[^"]+/g) ?? [];

t.test('a post marked sensitive when posted: others get the blurred image made on the server, the author the photo', async (t) => {
  const { app, config, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const asAlice = client(app, alice.token);
  const asBob = client(app, bob.token);
  const key = await upload(app, alice.token, await makeJpeg(1200, 900));
  const res = await createPost(app, alice.token, {
    s3Key: key,
    caption: 'After the sauna',
    altText: 'A bottle on the tiles',
    sensitive: true,
    contentWarning: '  Bare shoulders\u202E  ',
  });
  t.equal(res.statusCode, 201);
  const created = res.json() as FeedPost;
  t.same(created.sensitive, { warning: 'Bare shoulders', blurred: false }, 'cleaned as every text; the author sees it unblurred');
  t.match(created.s3Url, /\/display\.webp$/);

  const own = (await inFeed(asAlice, created.postid))!;
  t.equal(own.s3Url, created.s3Url, 'the author always sees their own photo');
  t.same(own.sensitive, { warning: 'Bare shoulders', blurred: false });

  const seen = (await inFeed(asBob, created.postid))!;
  t.same(seen.sensitive, { warning: 'Bare shoulders', blurred: true });
  t.match(seen.s3Url, /^\/media\/[A-Za-z0-9_-]{22}\/blur\.webp$/, 'the blurred image');
  t.equal(seen.thumbnailUrl, seen.s3Url, 'the grid gets it too');
  t.equal(seen.mediumUrl, null);
  t.equal(seen.altText, '', 'nothing describes the photo before "Show photo"');
  const mediaKey = created.s3Url.split('/')[2]!;
  t.notOk(urlsIn(seen).some((u) => u.includes(mediaKey)), 'no URL of the photo itself, in any field');
  const grid = (await asBob('GET', '/api/view-user-posts?username=alice')).json as { posts: FeedPost[] };
  t.notOk(urlsIn(grid).some((u) => u.includes(mediaKey)), 'nor on her profile');
  t.same(grid.posts[0]?.sensitive, { warning: 'Bare shoulders', blurred: true });

  // The blurred image is served, is small, and is not the photo.
  const blurred = await app.inject({ method: 'GET', url: seen.s3Url });
  t.equal(blurred.statusCode, 200);
  t.equal(blurred.headers['content-type'], 'image/webp');
  const meta = await sharp(blurred.rawPayload).metadata();
  t.equal(meta.width, 480);
  t.equal(meta.height, 360, "the photo's shape");
  t.ok(blurred.rawPayload.length < 20_000, `a few KB (${blurred.rawPayload.length} bytes)`);
  t.ok(existsSync(join(config.storage.localDir, seen.s3Url.replace(/^\/media\//, 'media/'))), 'stored beside the other renditions');

  // "Show photo": the photo itself, on request.
  const shown = await asBob('GET', `/api/post-photo?postId=${created.postid}`);
  t.equal(shown.status, 200);
  t.match(shown.json, { s3Url: created.s3Url, thumbnailUrl: created.thumbnailUrl, altText: 'A bottle on the tiles', width: 1200, height: 900 });
  t.equal((await asBob('GET', '/api/post-photo?postId=999999')).status, 404);
  t.equal((await asBob('GET', '/api/post-photo?postId=abc')).status, 400);

  // Deleting the post deletes its blurred image too.
  t.equal((await asAlice('DELETE', `/api/post?postId=${created.postid}`)).status, 200);
  t.equal((await app.inject({ method: 'GET', url: seen.s3Url })).statusCode, 404, 'the blurred image goes with the post');
});

t.test('"Always show sensitive photos" is the person\'s own setting, kept by the server', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const carol = await createUser('carol');
  const asBob = client(app, bob.token);
  const asCarol = client(app, carol.token);
  const key = await upload(app, alice.token, await makeJpeg(800, 600));
  const post = (await createPost(app, alice.token, { s3Key: key, caption: 'x', sensitive: true })).json() as FeedPost;
  t.same(post.sensitive, { warning: '', blurred: false }, 'the warning is optional');

  t.same((await asBob('GET', '/api/account/sensitive-photos')).json, { alwaysShow: false }, 'off at first');
  t.same((await asBob('PUT', '/api/account/sensitive-photos', { alwaysShow: true })).json, { alwaysShow: true });
  t.same((await asBob('GET', '/api/account/sensitive-photos')).json, { alwaysShow: true }, 'kept');
  t.equal((await asBob('PUT', '/api/account/sensitive-photos', { alwaysShow: 'yes' })).status, 400);

  const forBob = (await inFeed(asBob, post.postid))!;
  t.equal(forBob.s3Url, post.s3Url, 'unblurred for the person who chose it');
  t.same(forBob.sensitive, { warning: '', blurred: false }, 'still marked sensitive');
  const forCarol = (await inFeed(asCarol, post.postid))!;
  t.same(forCarol.sensitive, { warning: '', blurred: true }, 'everyone else still gets it blurred');

  await asBob('PUT', '/api/account/sensitive-photos', { alwaysShow: false });
  t.same((await inFeed(asBob, post.postid))?.sensitive, { warning: '', blurred: true }, 'turned off again');
});

t.test('the warning past 100 characters, or without the flag, is a 400 that changes nothing', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const asAlice = client(app, alice.token);
  const key = await upload(app, alice.token, await makeJpeg(400, 300));
  const long = await createPost(app, alice.token, { s3Key: key, caption: 'x', sensitive: true, contentWarning: 'w'.repeat(101) });
  t.equal(long.statusCode, 400);
  t.match(long.json(), { error: 'invalid_request', message: /at most 100 characters \(it has 101\)/ });
  t.equal((await createPost(app, alice.token, { s3Key: key, caption: 'x', contentWarning: 'a warning' })).statusCode, 400, 'a warning needs the flag');
  t.equal((await createPost(app, alice.token, { s3Key: key, caption: 'x', sensitive: false, contentWarning: 'a warning' })).statusCode, 400);
  // 100 characters is the limit, counted as characters: 100 emoji pass.
  const ok = await createPost(app, alice.token, { s3Key: key, caption: 'x', sensitive: true, contentWarning: '🍺'.repeat(100) });
  t.equal(ok.statusCode, 201, 'the upload was not used up by the refusals');
  const postId = (ok.json() as FeedPost).postid;

  const before = app.database.sqlite.prepare('SELECT sensitive, content_warning, blur_key, caption, edited_at FROM posts WHERE id = ?').get(postId);
  for (const body of [
    { sensitive: true, contentWarning: 'x'.repeat(101) },
    { contentWarning: 'no flag' },
    { sensitive: false, contentWarning: 'off but warned' },
    { caption: 'new caption', sensitive: true, contentWarning: 'y'.repeat(500) },
  ]) {
    const res = await asAlice('PATCH', `/api/post?postId=${postId}`, body);
    t.equal(res.status, 400, JSON.stringify(body).slice(0, 60));
    t.type(res.json.message, 'string');
  }
  t.same(
    app.database.sqlite.prepare('SELECT sensitive, content_warning, blur_key, caption, edited_at FROM posts WHERE id = ?').get(postId),
    before,
    'nothing changed, the caption sent with a bad warning included',
  );
});

t.test('marked sensitive later by an edit: the blurred image is made then, from a post made before any existed', async (t) => {
  const { app, config, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const asAlice = client(app, alice.token);
  const asBob = client(app, bob.token);
  const key = await upload(app, alice.token, await makeJpeg(900, 1200));
  const post = (await createPost(app, alice.token, { s3Key: key, caption: 'plain' })).json() as FeedPost;
  t.equal(post.sensitive, undefined, 'a post not marked has no sensitive field');
  t.equal(app.database.sqlite.prepare('SELECT blur_key FROM posts WHERE id = ?').pluck().get(post.postid), null, 'and no blurred image');

  // Someone else cannot mark it (refused before any image is made: content-warnings-service.ts).
  const bobs = await asBob('PATCH', `/api/post?postId=${post.postid}`, { sensitive: true });
  t.equal(bobs.status, 403);
  t.equal(app.database.sqlite.prepare('SELECT count(*) FROM posts WHERE sensitive = 1').pluck().get(), 0);
  t.equal((await asBob('PATCH', '/api/post?postId=999999', { sensitive: true })).status, 404);
  const blurs = () => readdirSync(join(config.storage.localDir, 'media'), { recursive: true }).filter((f) => String(f).endsWith('blur.webp'));
  t.same(blurs(), [], 'nothing left stored');

  const marked = await asAlice('PATCH', `/api/post?postId=${post.postid}`, { sensitive: true, contentWarning: 'Spoiler', caption: 'plain, edited' });
  t.equal(marked.status, 200);
  t.match(marked.json, { caption: 'plain, edited', sensitive: { warning: 'Spoiler', blurred: false } }, 'the text and the flag in one edit');
  const seen = (await inFeed(asBob, post.postid))!;
  t.same(seen.sensitive, { warning: 'Spoiler', blurred: true });
  t.match(seen.s3Url, /blur\.webp$/);
  const meta = await sharp((await app.inject({ method: 'GET', url: seen.s3Url })).rawPayload).metadata();
  t.same([meta.width, meta.height], [480, 640], 'made from the stored photo, in its shape');

  // A text-only edit keeps the flag, and says so.
  const text = await asAlice('PATCH', `/api/post?postId=${post.postid}`, { caption: 'plain again' });
  t.same(text.json.sensitive, { warning: 'Spoiler', blurred: false });

  // Unmarked: everyone gets the photo; marked again: the same blurred image, none made anew.
  const off = await asAlice('PATCH', `/api/post?postId=${post.postid}`, { sensitive: false });
  t.equal(off.json.sensitive, undefined);
  t.equal((await inFeed(asBob, post.postid))?.s3Url, post.s3Url);
  const blurKey = app.database.sqlite.prepare('SELECT blur_key FROM posts WHERE id = ?').pluck().get(post.postid);
  await asAlice('PATCH', `/api/post?postId=${post.postid}`, { sensitive: true });
  t.equal(app.database.sqlite.prepare('SELECT blur_key FROM posts WHERE id = ?').pluck().get(post.postid), blurKey, 'kept and reused');
  t.equal((await inFeed(asBob, post.postid))?.s3Url, seen.s3Url);
});

t.test('an edit refused in its transaction leaves no blurred image behind', async (t) => {
  const { app, config, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const asAlice = client(app, alice.token);
  const key = await upload(app, alice.token, await makeJpeg(600, 400));
  const post = (await createPost(app, alice.token, { s3Key: key, caption: 'two photos?' })).json() as FeedPost;
  // The description of a photo the post does not have: refused by the edit, after the image was made.
  const res = await asAlice('PATCH', `/api/post?postId=${post.postid}`, { sensitive: true, photos: [{ index: 3, altText: 'x' }] });
  t.equal(res.status, 400);
  t.match(app.database.sqlite.prepare('SELECT sensitive, blur_key AS blurKey FROM posts WHERE id = ?').get(post.postid), { sensitive: 0, blurKey: null });
  const blurs = readdirSync(join(config.storage.localDir, 'media'), { recursive: true }).filter((f) => String(f).endsWith('blur.webp'));
  t.same(blurs, [], 'the image made for it was deleted');
});

t.test('an album marked sensitive: the first photo blurred, the others only after "Show photo"', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const asBob = client(app, bob.token);
  const keys = [await upload(app, alice.token, await makeJpeg(500, 500)), await upload(app, alice.token, await makeJpeg(500, 400))];
  const res = await createPost(app, alice.token, { photos: keys.map((s3Key) => ({ s3Key })), caption: 'two', sensitive: true });
  t.equal(res.statusCode, 201);
  const album = res.json() as FeedPost;
  t.equal(album.photos?.length, 2, 'the author gets every photo');
  const seen = (await inFeed(asBob, album.postid))!;
  t.equal(seen.photos, undefined, 'no photos list while blurred');
  t.same(urlsIn(seen).filter((u) => !u.endsWith('blur.webp')), []);
  const shown = (await asBob('GET', `/api/post-photo?postId=${album.postid}`)).json as FeedPost;
  t.same(shown.photos?.map((p) => p.s3Url), album.photos?.map((p) => p.s3Url));
});

t.test('a profile picture cannot be marked sensitive; a post nobody may see cannot be revealed', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const key = await upload(app, alice.token, await makeJpeg(300, 300), 'image/jpeg', { isProfilePicture: true });
  t.equal((await createPost(app, alice.token, { s3Key: key, isProfilePicture: true, sensitive: true })).statusCode, 400);
  const hidden = insertPost(app.database.sqlite, { userId: alice.id, caption: 'blocked' });
  await client(app, alice.token)('POST', '/api/account/bob/block');
  t.equal((await client(app, bob.token)('GET', `/api/post-photo?postId=${hidden.id}`)).status, 404, 'as for any post the caller cannot see');
});

t.test('an operator marks a reported post sensitive: logged, the reports closed, the author told why', async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'olga' });
  const olga = await createUser('olga');
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const asOlga = client(app, olga.token);
  const asAlice = client(app, alice.token);
  const asBob = client(app, bob.token);
  const key = await upload(app, alice.token, await makeJpeg(800, 600));
  const post = (await createPost(app, alice.token, { s3Key: key, caption: 'too much' })).json() as FeedPost;
  await asBob('POST', '/api/reports', { kind: 'post', id: post.postid, reason: 'nudity' });

  t.equal((await asBob('POST', `/api/admin/posts/${post.postid}/sensitive`, { reason: 'x' })).status, 403, 'operators only');
  t.equal((await asOlga('POST', `/api/admin/posts/${post.postid}/sensitive`, { reason: '' })).status, 400, 'the author must be told why');
  t.equal((await asOlga('POST', `/api/admin/posts/${post.postid}/sensitive`, { reason: 'ok', warning: 'w'.repeat(101) })).status, 400);
  t.equal((await asOlga('POST', '/api/admin/posts/999999/sensitive', { reason: 'ok' })).status, 404);
  t.equal((await inFeed(asBob, post.postid))?.sensitive, undefined, 'nothing changed yet');

  const res = await asOlga('POST', `/api/admin/posts/${post.postid}/sensitive`, { reason: 'Please warn for nudity.', warning: 'Nudity' });
  t.equal(res.status, 200);
  const seen = (await inFeed(asBob, post.postid))!;
  t.same(seen.sensitive, { warning: 'Nudity', blurred: true }, 'blurred for others from now on');
  t.match(seen.s3Url, /blur\.webp$/, 'its blurred image made then');
  t.same((await inFeed(asAlice, post.postid))?.sensitive, { warning: 'Nudity', blurred: false }, 'not for its author');
  t.equal((await asOlga('POST', `/api/admin/posts/${post.postid}/sensitive`, { reason: 'again' })).status, 400, 'already marked');

  const overview = (await asOlga('GET', '/api/admin/overview')).json;
  t.equal(overview.reports.length, 0, 'acting on the post closes its reports');
  t.match(overview.actions[0], { operator: 'olga', action: 'mark_sensitive', target: `post ${post.postid} by alice`, reason: 'Please warn for nudity.' });
  t.match((await asAlice('GET', '/api/account/notices')).json.notices, [{ action: 'mark_sensitive', excerpt: 'too much', reason: 'Please warn for nudity.' }], 'the author sees it, with the reason');

  // Reported again: the operator page shows the photo itself, marked sensitive.
  const carol = await createUser('carol');
  await client(app, carol.token)('POST', '/api/reports', { kind: 'post', id: post.postid, reason: 'other' });
  const again = (await asOlga('GET', '/api/admin/overview')).json.reports[0];
  t.match(again, { postId: post.postid, thumbnailUrl: post.thumbnailUrl, sensitive: { warning: 'Nudity' } });
});

t.test('removing an account deletes the blurred images of its sensitive posts with their photos', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const key = await upload(app, alice.token, await makeJpeg(800, 600));
  const post = (await createPost(app, alice.token, { s3Key: key, caption: 'x', sensitive: true, contentWarning: 'Steam' })).json() as FeedPost;
  const seen = (await inFeed(client(app, bob.token), post.postid))!;
  t.match(seen.s3Url, /\/blur\.webp$/);
  t.equal((await app.inject({ method: 'GET', url: seen.s3Url })).statusCode, 200);

  t.equal((await client(app, alice.token)('DELETE', '/api/account', { confirmUsername: 'alice' })).status, 200);
  t.equal((await app.inject({ method: 'GET', url: post.s3Url })).statusCode, 404, 'the photo is gone');
  t.equal((await app.inject({ method: 'GET', url: seen.s3Url })).statusCode, 404, 'and its blurred image with it');
});
