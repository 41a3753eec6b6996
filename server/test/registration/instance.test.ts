import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { APP_VERSION } from '../../src/kernel/version.js';
import { bareWebBuild, bearer, buildTestApp } from '../helpers.js';

t.test('the operator sets the server\'s name, description and rules; anyone reads them without a token', async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'keeper' });
  const operator = (await createUser('keeper')).token;
  const member = (await createUser('member')).token;

  const change = { name: '  Hops &\n Steam  ', description: 'Friends of the sauna club.', rules: 'Be kind\n\n  No faces without consent  \r\nCheers responsibly' };
  const refused = await app.inject({ method: 'PUT', url: '/api/admin/instance', headers: bearer(member), payload: change });
  t.equal(refused.statusCode, 403, 'members cannot');
  const saved = await app.inject({ method: 'PUT', url: '/api/admin/instance', headers: bearer(operator), payload: change });
  t.equal(saved.statusCode, 200, saved.body);
  const expected = {
    name: 'Hops & Steam',
    description: 'Friends of the sauna club.',
    rules: ['Be kind', 'No faces without consent', 'Cheers responsibly'],
    registrationMode: 'open',
    membersCanInvite: false,
    version: APP_VERSION,
  };
  t.same(saved.json(), expected, 'one line a rule, blank lines dropped, the name on one line');
  const read = await app.inject({ method: 'GET', url: '/api/instance' });
  t.same(read.json(), expected);
  t.equal(read.headers['cache-control'], 'no-cache');
});

t.test('bad input: an unknown mode, an over-long name, too many or too long rules: 400 and nothing changes', async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'keeper' });
  const operator = (await createUser('keeper')).token;
  const put = (payload: object) => app.inject({ method: 'PUT', url: '/api/admin/instance', headers: bearer(operator), payload });
  const before = (await app.inject({ method: 'GET', url: '/api/instance' })).json();
  const cases: [object, RegExp][] = [
    [{ name: 'Renamed', registrationMode: 'friends-only' }, /registrationMode must be one of open, approval, invite, closed/],
    [{ name: 'x'.repeat(61) }, /name can be at most 60 characters/],
    [{ name: '   ' }, /needs a name/],
    [{ description: 'd'.repeat(501) }, /description can be at most 500 characters/],
    [{ rules: Array.from({ length: 21 }, (_, i) => `Rule ${i}`).join('\n') }, /at most 20 rules/],
    [{ name: 'Renamed', rules: `ok\n${'r'.repeat(301)}` }, /Rule 2 is longer than 300 characters/],
    [{ unknownField: true }, /must NOT have additional properties/],
    [{ membersCanInvite: 'yes' }, /boolean/],
  ];
  for (const [payload, message] of cases) {
    const res = await put(payload);
    t.equal(res.statusCode, 400, JSON.stringify(payload));
    t.match(res.json(), { error: 'invalid_request', message });
  }
  t.same((await app.inject({ method: 'GET', url: '/api/instance' })).json(), before, 'nothing changed');
});

t.test('the page\'s title, the inlined config and the manifest follow the server\'s name', async (t) => {
  const dist = bareWebBuild(t);
  writeFileSync(join(dist, 'manifest.webmanifest'), JSON.stringify({ name: 'Shower Beer', short_name: 'Shower Beer', display: 'standalone' }));
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'keeper', WEB_DIST_DIR: dist });
  const operator = (await createUser('keeper')).token;
  const first = await app.inject({ method: 'GET', url: '/' });
  t.match(first.body, /<title>Shower Beer<\/title>/);
  const etag = String(first.headers.etag);

  const saved = await app.inject({
    method: 'PUT',
    url: '/api/admin/instance',
    headers: bearer(operator),
    payload: { name: 'Sauna <Club> & Co', description: 'Steam, then beer.', rules: 'Be kind' },
  });
  t.equal(saved.statusCode, 200);
  await app.reloadWebPages();
  const page = await app.inject({ method: 'GET', url: '/' });
  t.match(page.body, /<title>Sauna &lt;Club&gt; &amp; Co<\/title>/, 'the name, escaped, in the title');
  t.match(page.body, /"instance":\{"name":"Sauna \\u003cClub> & Co","description":"Steam, then beer.","rules":\["Be kind"\]/, 'and in the inlined config');
  t.not(page.headers.etag, etag, 'a new page, so a kept copy is not reused');
  t.equal((await app.inject({ method: 'GET', url: '/', headers: { 'if-none-match': etag } })).statusCode, 200);

  const manifest = await app.inject({ method: 'GET', url: '/manifest.webmanifest' });
  t.match(String(manifest.headers['content-type']), /^application\/manifest\+json/);
  t.equal(manifest.headers['cache-control'], 'no-cache');
  t.match(manifest.json(), { name: 'Sauna <Club> & Co', short_name: 'Sauna <Club>', description: 'Steam, then beer.', display: 'standalone' });
  t.match((await app.inject({ method: 'GET', url: '/config.json' })).json(), { instance: { name: 'Sauna <Club> & Co', registrationMode: 'open' } });
  // The embedded provider's pages name the server too.
  const signIn = await app.inject({ method: 'GET', url: '/oauth2/authorize?response_type=token&client_id=shower-beer&redirect_uri=http%3A%2F%2Flocalhost%3A3000%2Fapp%2Faccount' });
  t.equal(signIn.statusCode, 200);
  t.match(signIn.body, '<p class="brand-name">Sauna &#60;Club&#62; &#38; Co</p>');
  t.match(signIn.body, '<title>Sign in · Sauna &#60;Club&#62; &#38; Co</title>');
});

t.test('an app on another origin may send a first sign-in\'s invite and reason (CORS preflight)', async (t) => {
  const { app } = await buildTestApp(t, { CORS_ORIGINS: 'https://app.example.test' });
  const res = await app.inject({
    method: 'OPTIONS',
    url: '/api/user-posts',
    headers: { origin: 'https://app.example.test', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,x-invite-code,x-join-reason' },
  });
  t.equal(res.statusCode, 204);
  t.match(String(res.headers['access-control-allow-headers']), /X-Invite-Code.*X-Join-Reason/i);
});
