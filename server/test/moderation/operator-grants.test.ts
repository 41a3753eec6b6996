import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import t from 'tap';
import type { Config } from '../../src/kernel/config.js';
import { createOperatorsRepository } from '../../src/moderation/operators-repository.js';
import { client } from '../api/factories.js';
import { bearer, buildTestApp } from '../helpers.js';
import { fragmentOf, signIn, signUp } from '../idp/idp-helpers.js';

const PASSWORD = 'correct horse battery staple 42';

/** Signs up through the embedded provider's page; the access token it redirects with. */
async function signUpForToken(app: FastifyInstance, config: Config, username: string) {
  const res = await signUp(app, config, { username, email: `${username}.${Date.now()}@example.test`, password: PASSWORD });
  if (res.statusCode !== 303) throw new Error(`sign-up of ${username} answered ${res.statusCode}: ${res.body}`);
  return fragmentOf(String(res.headers.location)).get('access_token')!;
}

const roleIn = (token: string) => JSON.stringify(decodeJwt(token)).includes('shower-beer-admin');

t.test('a newcomer who takes the name of a removed operator is not an operator', async (t) => {
  const { app, config } = await buildTestApp(t, { ADMIN_USERNAMES: 'boss' });
  const founder = await signUpForToken(app, config, 'founder');
  const boss = await signUpForToken(app, config, 'boss');
  t.ok(roleIn(boss), 'the listed name signs up as an operator');
  t.match((await client(app, boss)('GET', '/api/me')).json, { username: 'boss', isOperator: true });
  t.equal((await client(app, boss)('GET', '/api/admin/overview')).status, 200);

  const removed = await app.inject({ method: 'DELETE', url: '/api/account', headers: bearer(boss), payload: { confirmUsername: 'boss' } });
  t.equal(removed.statusCode, 200, 'boss removes their own account, which frees the name');

  const stranger = await signUpForToken(app, config, 'boss');
  t.notOk(roleIn(stranger), 'the newcomer’s token carries no operator role');
  const asStranger = client(app, stranger);
  t.same((await asStranger('GET', '/api/me')).json, { username: 'boss', isOperator: false, suspension: null }, 'GET /api/me says no');
  t.equal((await asStranger('GET', '/api/admin/overview')).status, 403, 'and the operator routes refuse them');
  t.equal((await asStranger('POST', '/api/admin/users/founder/suspend', { reason: 'mine now' })).status, 403);
  const again = await signIn(app, config, 'boss', PASSWORD);
  t.notOk(roleIn(fragmentOf(String(again.headers.location)).get('access_token')!), 'nor after signing in again');

  const overview = (await client(app, founder)('GET', '/api/admin/overview')).json;
  t.equal(overview.operators.source, 'accounts');
  t.same(overview.operators.accounts.map((o: { username: string }) => o.username), ['founder'], 'the operator page lists who is one');
});

t.test('the first account’s rights do not pass to the next account of an emptied server', async (t) => {
  const { app, config } = await buildTestApp(t);
  const first = await signUpForToken(app, config, 'first');
  t.match((await client(app, first)('GET', '/api/me')).json, { isOperator: true }, 'the first account is an operator');
  t.equal((await app.inject({ method: 'DELETE', url: '/api/account', headers: bearer(first), payload: { confirmUsername: 'first' } })).statusCode, 200);
  // The provider has no account left, as on an empty server.
  const next = await signUpForToken(app, config, 'second');
  t.match((await client(app, next)('GET', '/api/me')).json, { isOperator: false });
  const taken = await signUpForToken(app, config, 'first');
  t.match((await client(app, taken)('GET', '/api/me')).json, { isOperator: false }, 'nor to one taking its name');
});

t.test('handing the role over: list the successor, then take the old name off ADMIN_USERNAMES', async (t) => {
  const { app, config, createUser } = await buildTestApp(t);
  const db = app.database.sqlite;
  const olga = await createUser('olga');
  const carol = await createUser('carol');
  const withList = (names: string[]) => createOperatorsRepository(db, { ...config.auth, adminUsernames: names });

  const before = withList(['olga']);
  t.equal(before.isOperator(olga.id), true);
  t.equal(before.isOperator(carol.id), false);
  // Restarted with both names: carol, who holds her name now, gets the grant at her next request.
  const both = withList(['olga', 'carol']);
  t.equal(both.isOperator(carol.id), true);
  t.same(both.list().map((o) => [o.username, o.reason]), [['olga', 'admin_usernames'], ['carol', 'admin_usernames']]);
  // Restarted without olga: her grant stands in the table but is not in effect.
  const after = withList(['carol']);
  t.equal(after.isOperator(olga.id), false, 'the old name off the list: no longer an operator');
  t.equal(after.isOperator(carol.id), true);
  t.same(after.list().map((o) => o.username), ['carol']);
  t.equal(withList(['olga', 'carol']).isOperator(olga.id), true, 'listed again, the same account is an operator again');
});
