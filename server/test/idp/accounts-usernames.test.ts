import t from 'tap';
import { createAccountsService, MESSAGES } from '../../src/idp/accounts-service.js';
import { buildTestApp, freshDatabase } from '../helpers.js';
import { signUp } from './idp-helpers.js';

const password = 'staple orange lantern';

t.test('a username that looks like a taken one is refused with a clear message', async (t) => {
  const accounts = createAccountsService(freshDatabase(t), { hashParams: { N: 1024, r: 8, p: 1 } });
  t.match(await accounts.signUp({ username: 'alice', email: 'alice@example.com', password }), { ok: true });
  for (const lookalike of ['aIice', 'a1ice', 'AIice']) {
    t.same(await accounts.signUp({ username: lookalike, email: `${lookalike}@example.net`, password }), { ok: false, errors: { username: MESSAGES.usernameLookalike } }, lookalike);
  }
  t.match(await accounts.signUp({ username: 'rnary', email: 'r@example.com', password }), { ok: true });
  t.match(await accounts.signUp({ username: 'mary', email: 'm@example.com', password }), { ok: false, errors: { username: MESSAGES.usernameLookalike } });
  t.match(await accounts.signUp({ username: 'alison', email: 'alison@example.com', password }), { ok: true }, 'a different name is fine');
});

t.test('two look-alike sign-ups at once: one wins', async (t) => {
  const accounts = createAccountsService(freshDatabase(t), { hashParams: { N: 1024, r: 8, p: 1 } });
  const results = await Promise.all([
    accounts.signUp({ username: 'alice', email: 'a1@example.com', password }),
    accounts.signUp({ username: 'aIice', email: 'a2@example.com', password }),
  ]);
  t.equal(results.filter((r) => r.ok).length, 1);
});

t.test('bidi controls and invisible characters in a username are refused on the sign-up page', async (t) => {
  const { app, config } = await buildTestApp(t, { RATE_LIMIT_AUTH_PER_MINUTE: '1000' });
  t.equal((await signUp(app, config, { username: 'alice', email: 'alice@example.com', password })).statusCode, 303);
  for (const username of ['\u202Eecila', 'ali\u200Bce', 'bob\u2066', 'bo\u200Db']) {
    const res = await signUp(app, config, { username, email: 'x@example.com', password });
    t.equal(res.statusCode, 400, JSON.stringify(username));
    t.ok(res.body.includes('Usernames cannot contain invisible or text-direction characters.'), JSON.stringify(username));
  }
  const looks = await signUp(app, config, { username: 'aIice', email: 'x@example.com', password });
  t.equal(looks.statusCode, 400);
  t.ok(looks.body.includes(MESSAGES.usernameLookalike));
});

t.test('names from another provider are shown without hidden characters', async (t) => {
  const { app } = await buildTestApp(t);
  const user = app.users.upsertFromClaims('oidc-sub-1', 'Mall\u202Eory\u200B', 'm@example.com');
  t.equal(user?.username, 'Mallory');
  t.equal(app.users.upsertFromClaims('oidc-sub-1', 'Mall\u202Eory\u200B', 'm@example.com')?.id, user?.id, 'the same person on the next request');
});
