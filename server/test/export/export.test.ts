import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { Value } from 'typebox/value';
import { ExportData, type ExportDataView } from '../../src/export/export-format.js';
import { attachment, EXPORTS_PER_HOUR } from '../../src/export/export-routes.js';
import { displayKey } from '../../src/kernel/storage/media-keys.js';
import { client, insertPost, insertPosts, type PostFactoryInput } from '../api/factories.js';
import { bearer, buildTestApp } from '../helpers.js';
import { readZip, type ZipEntry } from './unzip.js';

/** A post row with a display image in storage: random bytes, so each photo is told apart by its content. */
async function storedPost(app: FastifyInstance, input: PostFactoryInput) {
  const post = insertPost(app.database.sqlite, input);
  const bytes = randomBytes(2000 + Math.floor(Math.random() * 3000));
  await app.storage.write(displayKey(post.mediaKey), bytes, 'image/webp');
  return { ...post, bytes };
}

async function exportOf(app: FastifyInstance, token: string) {
  const res = await app.inject({ method: 'GET', url: '/api/export', headers: bearer(token) });
  if (res.statusCode !== 200) throw new Error(`export answered ${res.statusCode}: ${res.body}`);
  const entries = readZip(res.rawPayload);
  const file = (name: string) => entries.find((e: ZipEntry) => e.name === name);
  const text = file('data.json')!.data.toString('utf8');
  return { res, entries, names: entries.map((e) => e.name), text, data: JSON.parse(text) as ExportDataView, file };
}

t.test('the zip holds the person’s data.json and photos, and nothing of anyone else’s anonymity', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  const carol = await createUser('carol');
  const asAlice = client(app, alice.token);
  const asBob = client(app, bob.token);
  const asCarol = client(app, carol.token);

  const first = await storedPost(app, { userId: alice.id, caption: 'First beer of the year', createdAt: 1_000 });
  const secret = await storedPost(app, { userId: alice.id, caption: 'Secret shower beer', isAnonymous: true, createdAt: 2_000 });
  const third = await storedPost(app, { userId: alice.id, caption: 'Third, with “quotes” and ünïcode', createdAt: 3_000 });
  const oldPicture = await storedPost(app, { userId: alice.id, isProfilePicture: true, createdAt: 500 });
  const picture = await storedPost(app, { userId: alice.id, isProfilePicture: true, createdAt: 4_000 });
  app.database.sqlite.prepare('UPDATE posts SET alt_text = ? WHERE id = ?').run('A green can on a white shelf', third.id);
  const bobPublic = await storedPost(app, { userId: bob.id, caption: 'Bob in public', createdAt: 1_500 });
  const bobSecret = await storedPost(app, { userId: bob.id, caption: 'Bob anonymous', isAnonymous: true, createdAt: 1_600 });

  for (const [as, postId, comment] of [
    [asAlice, first.id, 'my own first comment'],
    [asAlice, bobPublic.id, 'nice one bob'],
    [asAlice, bobSecret.id, 'on an anonymous post'],
    [asBob, first.id, 'cheers alice'],
    [asBob, secret.id, 'who is this?'],
  ] as const) {
    t.equal((await as('POST', '/api/comment', { postId, comment })).status, 201);
  }
  for (const [as, postId] of [
    [asAlice, bobPublic.id],
    [asAlice, bobSecret.id],
    [asBob, first.id],
    [asBob, secret.id],
    [asCarol, first.id],
  ] as const) {
    t.equal((await as('POST', '/api/like', { postId })).status, 201);
  }
  t.equal((await asAlice('POST', '/api/account/bob/follow')).status, 200);
  t.equal((await asBob('POST', '/api/account/alice/follow')).status, 200);
  t.equal((await asCarol('POST', '/api/account/alice/follow')).status, 200);

  const mine = await exportOf(app, alice.token);
  t.equal(mine.res.headers['content-type'], 'application/zip');
  const day = new Date().toISOString().slice(0, 10);
  t.match(mine.res.headers['content-disposition'], `attachment; filename="shower-beer-alice-${day}.zip"`);
  t.equal(mine.res.headers['cache-control'], 'no-store');
  t.equal(mine.res.rawPayload.subarray(0, 4).toString('latin1'), 'PK\x03\x04');

  t.same(mine.names, [
    'data.json',
    'profile-picture.webp',
    `profile-pictures/${oldPicture.id}.webp`,
    `photos/${first.id}.webp`,
    `photos/${secret.id}.webp`,
    `photos/${third.id}.webp`,
  ]);
  const errors = [...Value.Errors(ExportData, mine.data)].map((e) => `${e.instancePath} ${e.message}`);
  t.same(errors, [], 'data.json validates against the published schema');
  t.ok(Value.Check(ExportData, mine.data));

  const { data } = mine;
  t.equal(data.format, 'shower-beer-export');
  t.equal(data.version, 1);
  t.match(data.profile, { id: alice.id, username: 'alice', email: 'alice@example.test', profilePicture: 'profile-picture.webp', suspension: null });
  t.same(
    data.posts.map((p) => [p.id, p.caption, p.altText, p.isAnonymous, p.likeCount, p.commentCount, p.photo]),
    [
      [first.id, 'First beer of the year', null, false, 2, 2, `photos/${first.id}.webp`],
      [secret.id, 'Secret shower beer', null, true, 1, 1, `photos/${secret.id}.webp`],
      [third.id, 'Third, with “quotes” and ünïcode', 'A green can on a white shelf', false, 0, 0, `photos/${third.id}.webp`],
    ],
    'every post, the anonymous one too, with its alt text and counts, oldest first',
  );
  t.equal(data.posts[0]!.createdAt, new Date(1_000).toISOString());
  t.same(data.earlierProfilePictures, [{ id: oldPicture.id, createdAt: new Date(500).toISOString(), photo: `profile-pictures/${oldPicture.id}.webp` }]);
  t.same(
    data.comments.map((c) => [c.postId, c.postAuthor, c.content]),
    [
      [first.id, 'alice', 'my own first comment'],
      [bobPublic.id, 'bob', 'nice one bob'],
      [bobSecret.id, null, 'on an anonymous post'],
    ],
    'only her own comments; the author of someone else’s anonymous post stays hidden',
  );
  t.same(data.likes.map((l) => [l.postId, l.postAuthor]), [[bobPublic.id, 'bob'], [bobSecret.id, null]]);
  t.same(data.following.map((f) => f.username), ['bob']);
  t.same(data.followers.map((f) => f.username), ['bob', 'carol']);
  t.notOk(mine.text.includes('Bob anonymous'), 'nothing of other people’s posts but their id');

  // Every photo, byte for byte what storage holds: the display rendition, the largest there is.
  const photoBytes: [string, Buffer][] = [
    ['profile-picture.webp', picture.bytes],
    [`profile-pictures/${oldPicture.id}.webp`, oldPicture.bytes],
    [`photos/${first.id}.webp`, first.bytes],
    [`photos/${secret.id}.webp`, secret.bytes],
    [`photos/${third.id}.webp`, third.bytes],
  ];
  for (const [name, bytes] of photoBytes) t.ok(mine.file(name)!.data.equals(bytes), `${name} is the stored image`);

  // Bob's export: his side of the same likes and comments, without alice's anonymous post.
  const his = await exportOf(app, bob.token);
  t.ok(Value.Check(ExportData, his.data));
  t.same(his.data.posts.map((p) => p.caption), ['Bob in public', 'Bob anonymous']);
  t.notOk(his.names.includes(`photos/${secret.id}.webp`), 'her anonymous post’s photo is not in his zip');
  t.notOk(his.text.includes('Secret shower beer'));
  t.same(his.data.likes.map((l) => [l.postId, l.postAuthor]), [[first.id, 'alice'], [secret.id, null]], 'he never learns who posted it');
  t.same(his.data.comments.map((c) => [c.postId, c.postAuthor]), [[first.id, 'alice'], [secret.id, null]]);
  t.same(his.data.followers.map((f) => f.username), ['alice']);
  t.equal(his.data.profile.profilePicture, null);
  t.notOk(his.names.includes('profile-picture.webp'));
});

t.test('likes come by post, across pages, each with when it was given', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const alice = await createUser('alice');
  const bob = await createUser('bob');
  // More likes than two export pages (EXPORT_PAGE is 250), given newest post first, three to a millisecond.
  const postIds = insertPosts(app.database.sqlite, bob.id, 600, 1_000);
  const like = app.database.sqlite.prepare('INSERT INTO likes (post_id, user_id, created_at, recipient_id) VALUES (?, ?, ?, ?)');
  const given = postIds.map((postId, i) => ({ postId, at: 10_000 + Math.floor((postIds.length - 1 - i) / 3) }));
  for (const g of [...given].reverse()) like.run(g.postId, alice.id, g.at, bob.id);
  const expected = [...given].sort((a, b) => a.postId - b.postId);

  const { data } = await exportOf(app, alice.token);
  t.equal(data.likes.length, 600, 'every like once');
  t.same(data.likes.map((l) => l.postId), expected.map((g) => g.postId), 'oldest post first');
  t.same(data.likes.map((l) => l.createdAt), expected.map((g) => new Date(g.at).toISOString()), 'each with its own time');
});

t.test('without a token: 401 JSON, no zip', async (t) => {
  const { app } = await buildTestApp(t);
  const res = await app.inject({ method: 'GET', url: '/api/export' });
  t.equal(res.statusCode, 401);
  t.match(res.headers['content-type'], /^application\/json/);
  t.match(res.json(), { error: 'unauthorized' });
});

t.test('a suspended person may export; the limit counts per person and answers a JSON 429', async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'olga' });
  const olga = await createUser('olga');
  const dave = await createUser('dave');
  const erin = await createUser('erin');
  await storedPost(app, { userId: dave.id, caption: 'before the suspension', createdAt: 1_000 });
  t.equal((await client(app, olga.token)('POST', '/api/admin/users/dave/suspend', { reason: 'Spam.' })).status, 200);
  t.equal((await client(app, dave.token)('GET', '/api/user-posts')).status, 403, 'the rest of the API is closed to him');

  const first = await exportOf(app, dave.token);
  t.match(first.data.profile.suspension, { reason: 'Spam.' });
  t.same(first.data.posts.map((p) => p.caption), ['before the suspension'], 'his hidden posts are his all the same');
  for (let i = 1; i < EXPORTS_PER_HOUR; i++) await exportOf(app, dave.token);

  const refused = await app.inject({ method: 'GET', url: '/api/export', headers: bearer(dave.token) });
  t.equal(refused.statusCode, 429);
  t.match(refused.headers['content-type'], /^application\/json/);
  t.match(refused.json(), { error: 'rate_limited', message: /Too many requests: try again in \d+ s\./ });
  t.ok(Number(refused.headers['retry-after']) > 3000, `Retry-After ${refused.headers['retry-after']} s: the window is an hour`);
  t.equal((await app.inject({ method: 'GET', url: '/api/export', headers: bearer(erin.token) })).statusCode, 200, 'someone else is not held back');
});

t.test('a photo missing from storage is named in missing-photos.txt; the others are exported', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const frank = await createUser('frank');
  const kept = await storedPost(app, { userId: frank.id, caption: 'kept', createdAt: 1_000 });
  const lost = insertPost(app.database.sqlite, { userId: frank.id, caption: 'lost', createdAt: 2_000 });
  const { names, data, file } = await exportOf(app, frank.token);
  t.same(names, ['data.json', `photos/${kept.id}.webp`, 'missing-photos.txt']);
  t.same(data.posts.map((p) => p.caption), ['kept', 'lost'], 'data.json still lists the post');
  t.match(file('missing-photos.txt')!.data.toString('utf8'), `photos/${lost.id}.webp`);
});

t.test('the file name header keeps any username whole and the plain form safe', async (t) => {
  t.equal(attachment('shower-beer-alice-2026-11-25.zip'), `attachment; filename="shower-beer-alice-2026-11-25.zip"; filename*=UTF-8''shower-beer-alice-2026-11-25.zip`);
  t.equal(
    attachment('shower-beer-Zoë "Z" (it\'s me)*\r\n-2026-11-25.zip'),
    `attachment; filename="shower-beer-Zo_ _Z_ (it's me)*__-2026-11-25.zip"; ` +
      `filename*=UTF-8''shower-beer-Zo%C3%AB%20%22Z%22%20%28it%27s%20me%29%2A%0D%0A-2026-11-25.zip`,
  );
});

t.test('a private account exports its setting and the follow requests waiting either way', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const [dora, emil, finn, gus] = await Promise.all(['dora', 'emil', 'finn', 'gus'].map((name) => createUser(name)));
  const as = (user: { token: string }) => client(app, user.token);
  t.equal((await as(dora!)('PUT', '/api/account/privacy', { isPrivate: true })).status, 200);
  t.equal((await as(gus!)('PUT', '/api/account/privacy', { isPrivate: true })).status, 200);
  // Emil and Finn ask to follow Dora; Dora asks to follow Gus; Finn's request is approved, so it is a follow.
  for (const asker of [emil!, finn!]) t.same((await as(asker)('POST', '/api/account/dora/follow')).json.requested, true);
  t.same((await as(dora!)('POST', '/api/account/gus/follow')).json.requested, true);
  t.equal((await as(dora!)('POST', '/api/follow-requests/finn/approve')).status, 200);

  const { data } = await exportOf(app, dora!.token);
  t.ok(Value.Check(ExportData, data), 'data.json follows ExportData');
  t.equal(data.profile.isPrivate, true);
  t.same(data.followRequestsReceived.map((r) => r.username), ['emil'], 'the request still waiting for her answer');
  t.same(data.followers.map((f) => f.username), ['finn'], 'the approved one is a follower');
  t.same(data.followRequestsSent.map((r) => r.username), ['gus'], 'her own request still waiting');
  t.match(data.followRequestsSent[0]!.createdAt, /^\d{4}-\d\d-\d\dT/);
  const emils = (await exportOf(app, emil!.token)).data;
  t.equal(emils.profile.isPrivate, false);
  t.same(emils.followRequestsSent.map((r) => r.username), ['dora']);
  t.same(emils.followRequestsReceived, []);
});
