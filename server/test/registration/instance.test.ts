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
    contact: '',
    operators: ['keeper'],
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
  // The keeper's first operator call records the grant (moderation/operators-repository.ts): then `operators` names them.
  t.equal((await app.inject({ method: 'GET', url: '/api/admin/join-requests', headers: bearer(operator) })).statusCode, 200);
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
    [{ contact: 'c'.repeat(201) }, /contact can be at most 200 characters/],
    [{ contact: 'c'.repeat(1001) }, /must NOT have more than 1000 characters/],
  ];
  for (const [payload, message] of cases) {
    const res = await put(payload);
    t.equal(res.statusCode, 400, JSON.stringify(payload));
    t.match(res.json(), { error: 'invalid_request', message });
  }
  t.same((await app.inject({ method: 'GET', url: '/api/instance' })).json(), before, 'nothing changed');
});

t.test('every operator act on the settings is in the moderation log, and never a link or a token', async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'keeper' });
  const operator = (await createUser('keeper')).token;
  const member = (await createUser('member')).token;
  const as = (token: string) => (method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: object) =>
    app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
  const keeper = as(operator);
  const log = async () => ((await keeper('GET', '/api/admin/overview')).json() as { actions: Array<{ operator: string; action: string; target: string }> }).actions;
  t.same(await log(), [], 'nothing yet');

  t.equal((await keeper('PUT', '/api/admin/instance', { name: 'Sauna Friends', contact: 'keeper@example.org' })).statusCode, 200);
  t.equal((await keeper('PUT', '/api/admin/instance', { registrationMode: 'invite', membersCanInvite: true })).statusCode, 200);
  t.equal((await keeper('PUT', '/api/admin/instance', { registrationMode: 'invite' })).statusCode, 200, 'saved again unchanged');
  const made = (await keeper('POST', '/api/invites', { expiresInHours: 24, maxUses: 5 })).json() as { invite: { id: number }; code: string; url: string };
  t.equal((await keeper('DELETE', `/api/invites/${made.invite.id}`)).statusCode, 200);
  // A member's own link is not an operator act.
  t.equal((await as(member)('POST', '/api/invites', { expiresInHours: 1, maxUses: 1 })).statusCode, 200);

  const actions = await log();
  t.same(
    actions.map((a) => [a.operator, a.action, a.target]),
    [
      ['keeper', 'withdraw_invite', `invite link ${made.invite.id} by keeper`],
      ['keeper', 'make_invite', `invite link ${made.invite.id} (5 uses, 1 day)`],
      ['keeper', 'change_registration', 'registration invite only, members can invite on'],
      ['keeper', 'change_server_page', 'name “Sauna Friends”, contact'],
    ],
    'newest first; a save that changes nothing and a member\'s link are not logged',
  );
  t.notMatch(JSON.stringify(actions), made.code, 'the invite code is never in the log');
  t.match((await app.inject({ method: 'GET', url: '/api/instance' })).json(), { contact: 'keeper@example.org', operators: ['keeper'] });
});

t.test('a member gets 403 from every operator route whatever they send: the body is neither parsed nor validated for them', async (t) => {
  const { app, createUser } = await buildTestApp(t, { ADMIN_USERNAMES: 'keeper' });
  const member = (await createUser('member')).token;
  const before = (await app.inject({ method: 'GET', url: '/api/instance' })).json();
  const json = { ...bearer(member), 'content-type': 'application/json' };
  const cases: [string, string, string][] = [
    // What the schema refuses (an unknown field, a wrong type), and a body that is not JSON at all.
    ['PUT', '/api/admin/instance', JSON.stringify({ unknownField: true, membersCanInvite: 'yes' })],
    ['PUT', '/api/admin/instance', '{"name": '],
    ['DELETE', '/api/admin/posts/1', JSON.stringify({ reason: 42 })],
    ['POST', '/api/admin/users/nobody/suspend', '[]'],
    ['POST', '/api/admin/join-requests/nobody/approve', 'not json'],
    ['POST', '/api/admin/users/nobody/password-reset', '{"x":'],
  ];
  for (const [method, url, payload] of cases) {
    const res = await app.inject({ method: method as 'PUT', url, headers: json, payload });
    t.equal(res.statusCode, 403, `${method} ${url} ${payload}`);
    t.same(res.json(), { error: 'forbidden', message: 'Only operators can do this.' }, 'the same answer whatever was sent');
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
