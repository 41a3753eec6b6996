import type { FastifyInstance } from 'fastify';
import t from 'tap';
import { client } from '../api/factories.js';
import { buildTestApp } from '../helpers.js';
import { createPost, makeJpeg, upload } from '../media/upload-helpers.js';
import { CSV_HEADER, normalizeDomain } from '../../src/federation/domain-blocks.js';
import { eventually } from './peer.js';
import { followAcross, twoServers } from './two-servers.js';

/** The export, as a browser downloads it: CSV, not JSON. */
const exportOf = (app: FastifyInstance, token: string) =>
  app.inject({ method: 'GET', url: '/api/admin/federation/blocks/export', headers: { authorization: `Bearer ${token}` } });

t.test('a domain as blocks name it', async (t) => {
  t.equal(normalizeDomain(' Mastodon.Social '), 'mastodon.social');
  t.equal(normalizeDomain('https://pixelfed.example/users/ann'), 'pixelfed.example', 'a pasted address gives its host');
  t.equal(normalizeDomain('b.test:8443'), 'b.test:8443', 'one server on a port');
  t.equal(normalizeDomain('bücher.example'), 'xn--bcher-kva.example', 'an IDN in punycode');
  for (const bad of ['', '*.evil.example', 'user@evil.example', 'evil example', '-bad-.example']) t.equal(normalizeDomain(bad), null, `"${bad}" is refused`);
});

t.test("the operator's block list: set, changed, lifted, logged; Mastodon's CSV round-trips; others get 403", async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'olga' });
  const olgaToken = (await createUser('olga')).token;
  const asOlga = client(app, olgaToken);
  const asAlice = client(app, (await createUser('alice')).token);

  t.equal((await asAlice('GET', '/api/admin/federation/blocks')).status, 403);
  t.equal((await asAlice('PUT', '/api/admin/federation/blocks', { domain: 'evil.example', severity: 'suspend' })).status, 403);
  t.equal((await exportOf(app, (await createUser('carl')).token)).statusCode, 403, 'the list is the operators\' only');

  const saved = await asOlga('PUT', '/api/admin/federation/blocks', {
    domain: 'https://Evil.Example/@spam',
    severity: 'suspend',
    publicComment: 'Spam, harassment',
    privateComment: 'Reported by three members in June',
  });
  t.equal(saved.status, 200);
  t.match(saved.json, { block: { domain: 'evil.example', severity: 'suspend', rejectMedia: false }, removedPeople: 0 });
  t.equal((await asOlga('PUT', '/api/admin/federation/blocks', { domain: 'loud.example', severity: 'limit', rejectMedia: true })).status, 200);
  for (const [body, why] of [
    [{ domain: '*.evil.example', severity: 'suspend' }, 'a wildcard'],
    [{ domain: 'x.example', severity: 'ban' }, 'an unknown severity'],
    [{ domain: 'x.example' }, 'no severity'],
    [{ domain: 'x.example', severity: 'noop', publicComment: 'x'.repeat(1001) }, 'a reason over 1000 characters'],
    [{ domain: 'x.example', severity: 'noop', extra: 1 }, 'an unknown field'],
  ] as const) {
    const res = await asOlga('PUT', '/api/admin/federation/blocks', body);
    t.equal(res.status, 400, `${why}: 400`);
    t.type(res.json.message, 'string');
  }
  let list = (await asOlga('GET', '/api/admin/federation/blocks')).json.blocks as Array<{ domain: string; severity: string }>;
  t.same(list.map((b) => [b.domain, b.severity]), [['evil.example', 'suspend'], ['loud.example', 'limit']], 'nothing of the refused ones');

  // Mastodon's export: "silence" for limit, public comments only.
  const exported = await exportOf(app, olgaToken);
  t.equal(exported.statusCode, 200);
  t.match(exported.headers['content-type'], /^text\/csv/);
  t.match(exported.headers['content-disposition'], /attachment; filename="domain_blocks.csv"/);
  t.equal(
    exported.body,
    `${CSV_HEADER}\nevil.example,suspend,false,false,"Spam, harassment",false\nloud.example,silence,true,false,,false\n`,
  );
  t.notMatch(exported.body, /three members/, 'a private reason never leaves');

  // Another operator's list, as Mastodon writes it, with a bad line: the rest is taken.
  const theirs = [
    CSV_HEADER,
    'spam.example,suspend,true,true,Bots,false',
    'noisy.example,silence,false,false,"Says ""hello"", a lot",true',
    'not a domain,suspend,false,false,,false',
    'loud.example,noop,true,false,now only media,false',
    '',
  ].join('\n');
  const imported = await asOlga('POST', '/api/admin/federation/blocks/import', { csv: theirs });
  t.equal(imported.status, 200);
  t.match(imported.json, { imported: 3, skipped: [{ line: 4, reason: /not a server's domain/ }], removedPeople: 0 });
  list = (await asOlga('GET', '/api/admin/federation/blocks')).json.blocks;
  t.match(list, [
    { domain: 'evil.example', severity: 'suspend' },
    { domain: 'loud.example', severity: 'noop', rejectMedia: true, publicComment: 'now only media' },
    { domain: 'noisy.example', severity: 'limit', publicComment: 'Says "hello", a lot', obfuscate: true },
    { domain: 'spam.example', severity: 'suspend', rejectMedia: true, rejectReports: true },
  ]);
  // Round trip: what is exported imports to the same list.
  const again = (await exportOf(app, olgaToken)).body;
  const fresh = await buildTestApp(t, { ADMIN_USERNAMES: 'olga' });
  const freshToken = (await fresh.createUser('olga')).token;
  t.match((await client(fresh.app, freshToken)('POST', '/api/admin/federation/blocks/import', { csv: again })).json, { imported: 4, skipped: [] });
  t.equal((await exportOf(fresh.app, freshToken)).body, again, 'the same CSV back');

  t.equal((await asOlga('DELETE', '/api/admin/federation/blocks/loud.example')).status, 200);
  t.equal((await asOlga('DELETE', '/api/admin/federation/blocks/loud.example')).status, 404, 'lifted once');
  const log = (await asOlga('GET', '/api/admin/overview')).json.actions as Array<{ action: string; target: string }>;
  t.match(log[0], { action: 'unblock_server', target: 'loud.example' });
  t.ok(log.some((a) => a.action === 'block_server' && a.target === 'evil.example'), 'each block is in the moderation log');
});

t.test('a suspended server: its people and all they left are gone here, nothing goes to it, nothing comes in from it', async (t) => {
  const { a, b } = await twoServers(t, { ADMIN_USERNAMES: 'olga' });
  const olga = await a.createUser('olga');
  const alice = await a.createUser('alice');
  const bob = await b.createUser('bob');
  const asOlga = client(a.app, olga.token);
  const asAlice = client(a.app, alice.token);
  const asBob = client(b.app, bob.token);
  const bobThere = `bob@${b.host}`;

  // They follow each other; Bob's post is in Alice's feed; he likes and comments on hers.
  await followAcross(a, alice.token, b, bob);
  await followAcross(b, bob.token, a, alice);
  await eventually('both follows are accepted', async () =>
    (await asAlice('GET', '/api/account/alice/followers')).json.length === 1 &&
    (await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(bobThere)}`)).json.isFollowing === true);
  await createPost(b.app, bob.token, { s3Key: await upload(b.app, bob.token, await makeJpeg(320, 240)), caption: 'from over there' });
  const hers = await createPost(a.app, alice.token, { s3Key: await upload(a.app, alice.token, await makeJpeg(320, 240)), caption: 'cheers' });
  let herPostThere = 0;
  await eventually('each sees the other\'s post', async () => {
    const feed = (await asBob('GET', '/api/followFeed')).json as Array<{ postid: number; caption: string }>;
    herPostThere = feed.find((p) => p.caption === 'cheers')?.postid ?? 0;
    return herPostThere > 0 && ((await asAlice('GET', '/api/followFeed')).json as unknown[]).length > 0;
  });
  await asBob('POST', '/api/like', { postId: herPostThere });
  await asBob('POST', '/api/comment', { postId: herPostThere, comment: 'Skål!' });
  const herPost = hers.json().postid as number;
  await eventually('his like and comment arrive', async () =>
    (await asAlice('GET', `/api/like?postId=${herPost}`)).json.likeCount === 1 &&
    ((await asAlice('GET', `/api/comment?postId=${herPost}`)).json as unknown[]).length === 1);

  // The operator suspends Bob's server.
  const suspended = await asOlga('PUT', '/api/admin/federation/blocks', { domain: b.host, severity: 'suspend', publicComment: 'test' });
  t.equal(suspended.status, 200);
  t.equal(suspended.json.removedPeople, 1, 'Bob, kept here, is removed');
  t.same((await asAlice('GET', '/api/followFeed')).json, [], 'his post is gone from her feed');
  t.equal((await asAlice('GET', `/api/like?postId=${herPost}`)).json.likeCount, 0, 'his like is gone');
  t.same((await asAlice('GET', `/api/comment?postId=${herPost}`)).json, [], 'his comment is gone');
  t.same((await asAlice('GET', '/api/account/alice/followers')).json, [], 'no longer her follower');
  const sqlite = a.app.database.sqlite;
  t.equal(sqlite.prepare('SELECT count(*) FROM users WHERE host IS NOT NULL AND deleted_at IS NULL').pluck().get(), 0);
  t.equal(sqlite.prepare('SELECT count(*) FROM federation_actor_deletions').pluck().get(), 0, 'no Delete is sent for him: he is not ours');
  t.same((await asAlice('GET', `/api/search-profiles?username=${encodeURIComponent(`${b.origin}/users/${bob.id}`)}`)).json, [], 'search does not reach his server');

  // Nothing goes out to it: her next post is not queued for it.
  await createPost(a.app, alice.token, { s3Key: await upload(a.app, alice.token, await makeJpeg(320, 240)), caption: 'after the block' });
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  t.equal(sqlite.prepare('SELECT count(*) FROM federation_queue').pluck().get(), 0, 'nothing waits for it');
  t.notOk(((await asBob('GET', '/api/followFeed')).json as Array<{ caption: string }>).some((p) => p.caption === 'after the block'), 'nothing reached it');

  // Nothing comes in: Bob likes her earlier post again on his server; her server answers 403.
  await asBob('DELETE', `/api/like?postId=${herPostThere}`);
  await asBob('POST', '/api/like', { postId: herPostThere });
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  t.equal((await asAlice('GET', `/api/like?postId=${herPost}`)).json.likeCount, 0, 'his new like did not get in');
  const failures = b.app.database.sqlite.prepare('SELECT status FROM federation_delivery_failures').pluck().all();
  t.ok(failures.includes(403), `his server was refused with 403 (${JSON.stringify(failures)})`);

  // Lifted: Bob, removed here, is looked up again as a new person (his old row keeps its removal).
  t.equal((await asOlga('DELETE', `/api/admin/federation/blocks/${encodeURIComponent(b.host)}`)).status, 200);
  const again = await asAlice('GET', `/api/search-profiles?username=${encodeURIComponent(`${b.origin}/users/${bob.id}`)}`);
  t.equal(again.status, 200, 'looked up again after the lift: no 500');
  t.same(again.json.map((m: { username: string }) => m.username), [bobThere], 'and found under his name');
  t.equal(sqlite.prepare('SELECT count(*) FROM users WHERE host IS NOT NULL AND deleted_at IS NULL').pluck().get(), 1, 'one live row for him');
  t.same((await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(bobThere)}`)).json.isFollowing, false, 'with none of what was removed');
});

t.test("a server whose media is rejected: its posts are not kept here (a post here is its photos), nor its people's pictures", async (t) => {
  const { a, b } = await twoServers(t, { ADMIN_USERNAMES: 'olga' });
  const asOlga = client(a.app, (await a.createUser('olga')).token);
  const alice = await a.createUser('alice');
  const bob = await b.createUser('bob');
  const asAlice = client(a.app, alice.token);
  const bobThere = `bob@${b.host}`;
  t.equal((await asOlga('PUT', '/api/admin/federation/blocks', { domain: b.host, severity: 'noop', rejectMedia: true })).json.removedPeople, 0, 'nobody removed');
  await followAcross(a, alice.token, b, bob);
  await eventually('Alice follows Bob: follows still cross', async () =>
    (await asAlice('GET', `/api/view-user-posts?username=${encodeURIComponent(bobThere)}`)).json.isFollowing === true);
  await createPost(b.app, bob.token, { s3Key: await upload(b.app, bob.token, await makeJpeg(320, 240)), caption: 'not fetched' });
  // The delivery is taken (202) and the Create handled: nothing is kept.
  await eventually('his post was delivered', async () => b.app.database.sqlite.prepare('SELECT count(*) FROM federated_posts').pluck().get() === 1);
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  t.same((await asAlice('GET', '/api/followFeed')).json, [], 'not in her feed');
  t.equal(a.app.database.sqlite.prepare('SELECT count(*) FROM posts').pluck().get(), 0, 'no post, no photo stored');
});
