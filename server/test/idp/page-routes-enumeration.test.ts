import t from 'tap';
import { buildTestApp } from '../helpers.js';
import { authorizeQuery, openForm, signUp } from './idp-helpers.js';

const MANY = { RATE_LIMIT_AUTH_PER_MINUTE: '10000', TRUST_PROXY: 'true' };
const alice = { username: 'alice', email: 'alice@example.com', password: 'correct horse battery' };
const bob = { username: 'bob', email: 'bob@example.com', password: 'staple orange lantern' };

type App = Awaited<ReturnType<typeof buildTestApp>>;

/** Posts a page's form from a client address with one browser's cookie, as the browser would. */
async function post({ app, config }: App, page: 'authorize' | 'signup', fields: Record<string, string>, address = '192.0.2.10') {
  const form = await openForm(app, config, page);
  const body = new URLSearchParams(authorizeQuery(config));
  for (const [k, v] of Object.entries(fields)) body.set(k, v);
  body.set('csrf_token', form.csrf);
  const res = await app.inject({
    method: 'POST',
    url: `/oauth2/${page}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie, 'x-forwarded-for': address },
    payload: body.toString(),
  });
  // The form's CSRF token differs per browser; everything else must be equal.
  return { status: res.statusCode, location: res.headers.location, body: res.body.replaceAll(form.csrf, 'CSRF') };
}

t.test('failures typed as an e-mail do not tell which username it belongs to', async (t) => {
  const ctx = await buildTestApp(t, MANY);
  await signUp(ctx.app, ctx.config, alice);
  await signUp(ctx.app, ctx.config, bob);
  for (let i = 0; i < 5; i++) await post(ctx, 'authorize', { username: 'alice@example.com', password: `wrong ${i}` });
  const locked = await post(ctx, 'authorize', { username: 'alice@example.com', password: 'wrong again' });
  t.equal(locked.status, 429, 'the e-mail itself is limited');
  // The name answers exactly as a name nobody guessed at: the lock does not link the two.
  const viaName = await post(ctx, 'authorize', { username: 'alice', password: 'wrong' });
  const untouched = await post(ctx, 'authorize', { username: 'bob', password: 'wrong' });
  t.equal(viaName.status, 400);
  t.equal(viaName.body.replace('value="alice"', 'value="X"'), untouched.body.replace('value="bob"', 'value="X"'));
  t.equal((await post(ctx, 'authorize', { username: 'alice', password: alice.password })).status, 303, 'the owner signs in by name');
});

t.test('a wrong password for a real account and any password for a made-up name answer alike', async (t) => {
  const ctx = await buildTestApp(t, MANY);
  await signUp(ctx.app, ctx.config, alice);
  const real = await post(ctx, 'authorize', { username: 'alice', password: 'wrong' });
  const ghost = await post(ctx, 'authorize', { username: 'nobody1', password: 'wrong' });
  t.equal(real.status, 400);
  t.equal(real.body.replace('value="alice"', 'value="X"'), ghost.body.replace('value="nobody1"', 'value="X"'));
});

t.test('a removed account answers the right password as it answers a wrong one', async (t) => {
  const ctx = await buildTestApp(t, MANY);
  await signUp(ctx.app, ctx.config, alice);
  ctx.app.database.sqlite.prepare("UPDATE users SET deleted_at = 1 WHERE username = 'alice'").run();
  const right = await post(ctx, 'authorize', { username: 'alice', password: alice.password });
  const wrong = await post(ctx, 'authorize', { username: 'alice', password: 'wrong' });
  t.equal(right.status, 400, 'not 403');
  t.equal(right.location, undefined, 'no token');
  t.same(right, wrong, 'status and page are identical');
});

t.test('sign-up says an e-mail is registered only a few times per address', async (t) => {
  const ctx = await buildTestApp(t, MANY);
  await signUp(ctx.app, ctx.config, alice);
  for (let i = 0; i < 5; i++) {
    const res = await post(ctx, 'signup', { username: `probe${i}`, email: 'alice@example.com', password: 'a long fresh passphrase' }, '203.0.113.5');
    t.equal(res.status, 400);
    t.match(res.body, /An account with this email already exists\. Sign in instead\./);
  }
  const fresh = await post(ctx, 'signup', { username: 'carol', email: 'carol@example.com', password: 'a long fresh passphrase' }, '203.0.113.5');
  const taken = await post(ctx, 'signup', { username: 'dave', email: 'alice@example.com', password: 'a long fresh passphrase' }, '203.0.113.5');
  t.equal(fresh.status, 429, 'past the budget even a free e-mail waits…');
  t.equal(taken.status, 429, '…exactly as a taken one');
  t.equal(fresh.body.replace(/value="[^"]*"/g, ''), taken.body.replace(/value="[^"]*"/g, ''));
  t.match(fresh.body, /Too many sign-up attempts from your network\. Please wait 60 minutes and try again\./);
  const elsewhere = await post(ctx, 'signup', { username: 'carol', email: 'carol@example.com', password: 'a long fresh passphrase' }, '198.51.100.9');
  t.equal(elsewhere.status, 303, 'another address signs up');
});
