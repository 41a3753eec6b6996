import t from 'tap';
import { bearer, buildTestApp } from '../helpers.js';

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
