import t from 'tap';
import { Value } from 'typebox/value';
import { ExportData, type ExportDataView } from '../../src/export/export-format.js';
import { bearer, buildTestApp } from '../helpers.js';
import { createPost, makeJpeg, upload } from '../media/upload-helpers.js';
import { readZip } from './unzip.js';

t.test('the export holds every photo of every album, in order, with its description', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const album = await createPost(app, alice.token, {
    caption: 'Three at the lake',
    isAnonymous: true,
    photos: [
      { s3Key: await upload(app, alice.token, await makeJpeg(600, 400)), altText: 'The pier' },
      { s3Key: await upload(app, alice.token, await makeJpeg(300, 500)) },
      { s3Key: await upload(app, alice.token, await makeJpeg(500, 500)), altText: 'A heron' },
    ],
  });
  t.equal(album.statusCode, 201, album.body);
  const single = await createPost(app, alice.token, { caption: 'One', s3Key: await upload(app, alice.token, await makeJpeg(400, 300)) });
  t.equal(single.statusCode, 201);
  const albumId = album.json().postid as number;
  const singleId = single.json().postid as number;
  const served = await Promise.all(
    (album.json().photos as { s3Url: string }[]).map(async (p) => (await app.inject({ url: p.s3Url })).rawPayload),
  );

  const res = await app.inject({ method: 'GET', url: '/api/export', headers: bearer(alice.token) });
  t.equal(res.statusCode, 200);
  const entries = readZip(res.rawPayload);
  t.same(
    entries.map((e) => e.name),
    ['data.json', `photos/${albumId}.webp`, `photos/${albumId}-2.webp`, `photos/${albumId}-3.webp`, `photos/${singleId}.webp`],
  );
  for (const [i, name] of [`photos/${albumId}.webp`, `photos/${albumId}-2.webp`, `photos/${albumId}-3.webp`].entries()) {
    t.ok(entries.find((e) => e.name === name)!.data.equals(served[i]!), `${name} is the photo served, in its place`);
  }
  const data = JSON.parse(entries[0]!.data.toString('utf8')) as ExportDataView;
  t.ok(Value.Check(ExportData, data), 'data.json matches the documented format');
  const [mine, one] = data.posts;
  t.same(mine!.photos, [
    { photo: `photos/${albumId}.webp`, altText: 'The pier', width: 600, height: 400 },
    { photo: `photos/${albumId}-2.webp`, altText: null, width: 300, height: 500 },
    { photo: `photos/${albumId}-3.webp`, altText: 'A heron', width: 500, height: 500 },
  ]);
  t.equal(mine!.photo, `photos/${albumId}.webp`, 'photo stays the first one');
  t.same(one!.photos, [{ photo: `photos/${singleId}.webp`, altText: null, width: 400, height: 300 }]);
});

t.test("the export carries each post's edits: editedAt, the earlier versions oldest first, the descriptions as they are now", async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const album = await createPost(app, alice.token, {
    caption: 'Two at the lake',
    photos: [
      { s3Key: await upload(app, alice.token, await makeJpeg(300, 200)), altText: 'The pier' },
      { s3Key: await upload(app, alice.token, await makeJpeg(300, 200)) },
    ],
  });
  const single = await createPost(app, alice.token, { caption: 'Never edited', s3Key: await upload(app, alice.token, await makeJpeg(300, 200)) });
  const albumId = album.json().postid as number;
  const edit = (body: unknown) =>
    app.inject({ method: 'PATCH', url: `/api/post?postId=${albumId}`, headers: bearer(alice.token), payload: body as object });
  const first = await edit({ photos: [{ index: 1, altText: 'Reeds in the wind' }] });
  t.equal(first.statusCode, 200, first.body);
  const second = await edit({ caption: 'Two at the lake, at dawn', photos: [{ index: 0, altText: '' }] });
  t.equal(second.statusCode, 200, second.body);

  const res = await app.inject({ method: 'GET', url: '/api/export', headers: bearer(alice.token) });
  t.equal(res.statusCode, 200);
  const data = JSON.parse(readZip(res.rawPayload)[0]!.data.toString('utf8')) as ExportDataView;
  t.ok(Value.Check(ExportData, data), 'data.json matches the documented format');
  const [mine, one] = data.posts;
  t.equal(mine!.caption, 'Two at the lake, at dawn');
  t.equal(mine!.editedAt, second.json().editedAt, 'when it was last edited');
  t.same(mine!.photos.map((p) => p.altText), [null, 'Reeds in the wind'], "every photo's description as it is now");
  t.same(
    mine!.earlierVersions.map((v) => [v.createdAt, v.caption, v.photos.map((p) => p.altText)]),
    [
      [album.json().created_at, 'Two at the lake', ['The pier', null]],
      [first.json().editedAt, 'Two at the lake', ['The pier', 'Reeds in the wind']],
    ],
    'what it said before each edit, oldest first, with since when',
  );
  t.equal(mine!.earlierVersions[0]!.altText, 'The pier');
  t.match(one, { caption: 'Never edited', editedAt: null, earlierVersions: [] });
  t.equal(single.statusCode, 201);
});
