import t from 'tap';
import { createTrigramFrequencies, prefixUpperBound } from '../../src/people/users-repository.js';
import { buildTestApp } from '../helpers.js';
import { client, insertPost } from './factories.js';

t.test('sync-users answers the caller as the token names them', async (t) => {
  const { app, createUser, tokenFor } = await buildTestApp(t);
  const me = await createUser('me', 'me@example.test');
  const res = await client(app, me.token)('POST', '/api/sync-users');
  t.equal(res.status, 200);
  t.same(res.json, { username: 'me', email: 'me@example.test', profilePictureUrl: null });
  const pic = insertPost(app.database.sqlite, { userId: me.id, isProfilePicture: true });
  t.equal((await client(app, me.token)('POST', '/api/sync-users')).json.profilePictureUrl, `/media/${pic.mediaKey}/thumb.webp`);
  // A first call with a new token creates the user.
  const token = await tokenFor({ username: 'newcomer', email: 'new@example.test' });
  t.same((await client(app, token)('POST', '/api/sync-users')).json, {
    username: 'newcomer',
    email: 'new@example.test',
    profilePictureUrl: null,
  });
  t.equal((await app.inject({ method: 'POST', url: '/api/sync-users' })).statusCode, 401);
  t.equal((await app.inject({ method: 'POST', url: '/api/sync-users', headers: { authorization: 'Bearer a.b.c' } })).statusCode, 401);
});

t.test('search-profiles: prefix matches first, then substring, case-insensitive, literal wildcards', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const me = await createUser('searcher');
  for (const name of ['BeerFan', 'beerlover', 'rootbeer', 'ginger_beer', 'gingerXbeer', 'per%cent', 'perXcent', 'water']) {
    await createUser(name);
  }
  const asMe = client(app, me.token);
  const names = async (term: string) => {
    const res = await asMe('GET', `/api/search-profiles?username=${encodeURIComponent(term)}`);
    t.equal(res.status, 200, term);
    return res.json.map((m: { username: string }) => m.username);
  };
  t.same(await names('BEER'), ['BeerFan', 'beerlover', 'ginger_beer', 'gingerXbeer', 'rootbeer']);
  t.same(await names('  beer  '), ['BeerFan', 'beerlover', 'ginger_beer', 'gingerXbeer', 'rootbeer'], 'term trimmed');
  t.same(await names('r_b'), ['ginger_beer'], '_ is literal');
  t.same(await names('%'), ['per%cent'], '% is literal');
  t.same(await names('nothing'), []);
  const one = await asMe('GET', '/api/search-profiles?username=water');
  t.same(one.json, [{ username: 'water', profilePictureUrl: null }]);

  for (const q of ['', '?username=', '?username=%20%20', `?username=${'a'.repeat(101)}`]) {
    const res = await asMe('GET', `/api/search-profiles${q}`);
    t.equal(res.status, 400, `search ${q.slice(0, 20)}`);
    t.equal(res.json.error, 'invalid_request');
  }
  t.equal((await asMe('GET', `/api/search-profiles?username=${'a'.repeat(100)}`)).status, 200, '100 characters is fine');
  t.equal((await app.inject({ method: 'GET', url: '/api/search-profiles?username=a' })).statusCode, 401);
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/search-profiles?username=a', headers: { authorization: 'Bearer a.b.c' } })).statusCode,
    401,
  );
});

t.test('search-profiles answers at most 50, prefix matches before substring ones', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const me = await createUser('searcher');
  const db = app.database.sqlite;
  const insert = db.prepare('INSERT INTO users (sub, username, created_at) VALUES (?, ?, 0)');
  for (let i = 0; i < 40; i++) insert.run(`s-${i}`, `x-cat-${String(i).padStart(2, '0')}`);
  for (let i = 0; i < 30; i++) insert.run(`p-${i}`, `cat-${String(i).padStart(2, '0')}`);
  const res = await client(app, me.token)('GET', '/api/search-profiles?username=CAT');
  t.equal(res.json.length, 50);
  const names: string[] = res.json.map((m: { username: string }) => m.username);
  t.ok(names.slice(0, 30).every((n) => n.startsWith('cat-')), 'all 30 prefix matches first');
  t.ok(names.slice(30).every((n) => n.startsWith('x-cat-')), 'then substring matches');
});

t.test('prefix upper bound follows SQLite NOCASE order', async (t) => {
  t.equal(prefixUpperBound('abc'), 'abd');
  t.equal(prefixUpperBound('a@'), 'a[', 'after @ comes [ because A-Z fold to a-z');
  t.equal(prefixUpperBound('\u{10FFFF}'), null);
  t.equal(prefixUpperBound('a\u{10FFFF}'), 'b');
});

t.test('search-profiles: names containing the term are found through the trigram index, and follow renames', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const me = await createUser('searcher');
  for (const name of ['alpha"quote', 'Xhoppy', 'yHOPPYz', 'hopscotch']) await createUser(name);
  const asMe = client(app, me.token);
  const names = async (term: string) =>
    (await asMe('GET', `/api/search-profiles?username=${encodeURIComponent(term)}`)).json.map((m: { username: string }) => m.username);
  t.same(await names('hoppy'), ['Xhoppy', 'yHOPPYz'], 'contains, any case, sorted like the prefix part');
  t.same(await names('a"q'), ['alpha"quote'], 'a double quote is literal, not FTS syntax');
  t.same(await names('OR'), [], 'FTS operators are plain text');
  t.same(await names('ha" OR "x'), [], 'an injected FTS expression matches nothing');

  // A renamed account is found by its new name only (the triggers keep users_fts in step).
  const renamed = await createUser('oldname');
  app.users.upsertFromClaims(renamed.sub, 'freshname', 'oldname@example.test');
  t.same(await names('dnam'), []);
  t.same(await names('shnam'), ['freshname']);
  const plan = app.database.sqlite
    .prepare("EXPLAIN QUERY PLAN SELECT rowid FROM users_fts WHERE users_fts MATCH '\"hop\"'")
    .all() as { detail: string }[];
  t.match(plan.map((p) => p.detail).join(' '), /VIRTUAL TABLE INDEX/, 'served by the full-text index, not a scan of users');
});

t.test('search-profiles: a long term narrowed by its rarest trigrams still needs the whole term', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  const me = await createUser('searcher');
  // The decoy holds every trigram of "abcxyz" but not the term itself.
  for (const name of ['qq_abcxyz', 'ABCXYZ_loud', 'xyz_abc_bcx_cxy', 'zz1_2%3', 'zz1a2b3', 'bcxyq']) await createUser(name);
  for (let i = 0; i < 20; i++) await createUser(`common_xyz${i}`); // "xyz" is now a common trigram
  const asMe = client(app, me.token);
  const names = async (term: string) =>
    (await asMe('GET', `/api/search-profiles?username=${encodeURIComponent(term)}`)).json.map((m: { username: string }) => m.username);
  t.same(await names('abcxyz'), ['ABCXYZ_loud', 'qq_abcxyz'], 'prefix match first, then the one containing it; no decoy');
  t.same(await names('AbCxYz'), ['ABCXYZ_loud', 'qq_abcxyz'], 'any case');
  t.same(await names('z1_2%3'), ['zz1_2%3'], '_ and % are literal in the check too');
  t.same(await names('bcxy'), ['bcxyq', 'ABCXYZ_loud', 'qq_abcxyz'], 'two trigrams: the phrase itself');
});

t.test('trigram frequencies: the rarest first, remembered for a while, not for non-ASCII terms', async (t) => {
  const { app, createUser } = await buildTestApp(t);
  for (const name of ['aaab', 'aaac', 'aaad', 'zzab']) await createUser(name);
  let clock = 0;
  const freq = createTrigramFrequencies(app.database.sqlite, () => clock);
  // "aaab": trigrams aaa (3 names), aab (1 name).
  t.same(freq.rarest('xaaab', 2), ['xaa', 'aab'], 'unknown trigram (0 names) first, then the rarer one');
  t.equal(freq.rarest('aab', 2), null, 'too few trigrams: use the phrase');
  t.equal(freq.rarest('bière', 2), null, 'non-ASCII: use the phrase');
  await createUser('xaaz');
  await createUser('xaay');
  t.same(freq.rarest('xaaab', 2), ['xaa', 'aab'], 'still the remembered counts');
  clock += 11 * 60_000;
  t.same(freq.rarest('xaaab', 2), ['aab', 'xaa'], 'counted again after ten minutes');
});
