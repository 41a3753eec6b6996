import t from 'tap';
import { createAccountsService } from '../../src/idp/accounts-service.js';
import { createLoginThrottle } from '../../src/idp/login-throttle.js';
import { buildTestApp, freshDatabase } from '../helpers.js';
import { authorizeQuery, openForm, signUp } from './idp-helpers.js';

const MANY = { RATE_LIMIT_AUTH_PER_MINUTE: '10000' };
const owner = { username: 'alice', email: 'alice@example.com', password: 'correct horse battery' };

type App = Awaited<ReturnType<typeof buildTestApp>>;

/** Signs in through the page from a client address (X-Forwarded-For, honoured with TRUST_PROXY=true). */
async function signInFrom({ app, config }: App, address: string, username: string, password: string, form: { cookie: string; csrf: string }) {
  const body = new URLSearchParams(authorizeQuery(config));
  body.set('username', username);
  body.set('password', password);
  body.set('csrf_token', form.csrf);
  return app.inject({
    method: 'POST',
    url: '/oauth2/authorize',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie, 'x-forwarded-for': address },
    payload: body.toString(),
  });
}

t.test('20 guesses sent at once: at most the limit are evaluated, and a right one past it gets no token', async (t) => {
  const ctx = await buildTestApp(t, { ...MANY, TRUST_PROXY: 'true' });
  await signUp(ctx.app, ctx.config, owner);
  const form = await openForm(ctx.app, ctx.config, 'authorize');
  const guesses = Array.from({ length: 20 }, (_, i) => (i === 11 ? owner.password : `wrong guess ${i}`));
  const answers = await Promise.all(guesses.map((p) => signInFrom(ctx, '203.0.113.7', 'alice', p, form)));
  const evaluated = answers.filter((r) => r.statusCode !== 429);
  t.equal(evaluated.length, 5, 'five evaluated (wrong password answers), the rest refused before hashing');
  t.ok(evaluated.every((r) => r.statusCode === 400), 'each evaluated guess was wrong');
  t.equal(answers[11]!.statusCode, 429, 'the right password past the limit is refused');
  t.notOk(answers.some((r) => r.headers.location), 'no token was handed out');
});

t.test('a guesser from one address cannot stop the owner signing in from another', async (t) => {
  const ctx = await buildTestApp(t, { ...MANY, TRUST_PROXY: 'true' });
  await signUp(ctx.app, ctx.config, owner);
  const form = await openForm(ctx.app, ctx.config, 'authorize');
  for (let i = 0; i < 20; i++) await signInFrom(ctx, '203.0.113.7', i % 2 ? 'alice' : 'ALICE', `wrong ${i}`, form);
  const guesser = await signInFrom(ctx, '203.0.113.7', 'alice', owner.password, form);
  t.equal(guesser.statusCode, 429, 'the guessing address is refused, even with the right password');
  const home = await signInFrom(ctx, '198.51.100.2', 'alice', owner.password, form);
  t.equal(home.statusCode, 303, 'the owner at another address signs in');
  t.match(String(home.headers.location), /#access_token=/);
});

t.test('guesses spread over many addresses hit a bounded ceiling that drains again', async (t) => {
  let now = 10_000_000;
  const sqlite = freshDatabase(t);
  const throttle = createLoginThrottle(sqlite, { now: () => now });
  const accounts = createAccountsService(sqlite, { throttle, hashParams: { N: 1024, r: 8, p: 1 } });
  await accounts.signUp(owner);
  for (let i = 0; i < 30; i++) t.match(await accounts.signIn('alice', `wrong ${i}`, `10.0.0.${i}`), { reason: 'invalid' });
  const slowed = await accounts.signIn('alice', owner.password, '10.0.1.1');
  t.match(slowed, { ok: false, reason: 'throttled' }, 'past 30 at once, every address waits');
  const wait = slowed.ok === false && slowed.reason === 'throttled' ? slowed.retryAfterSeconds : 0;
  t.ok(wait > 0 && wait <= 120, `a short wait (backoff), not a lock: ${wait} s`);
  now += wait * 1000;
  t.match(await accounts.signIn('alice', owner.password, '10.0.1.1'), { ok: true }, 'after the wait the owner gets in');
  // At most burst + drain (30 + 30) failures are evaluated in any hour (ASVS 2.2.1: no more than 100).
  let evaluated = 0;
  const start = now;
  for (let i = 0; now < start + 3_600_000; i++) {
    const r = await accounts.signIn('alice', 'wrong', `10.1.${i >> 8}.${i & 255}`);
    if (r.ok === false && r.reason === 'invalid') evaluated++;
    now += 10_000;
  }
  t.ok(evaluated <= 60, `${evaluated} failures evaluated in an hour`);
});

t.test('the counts live in the database: a restart (a new throttle) still refuses', async (t) => {
  const sqlite = freshDatabase(t);
  const first = createLoginThrottle(sqlite);
  for (let i = 0; i < 5; i++) t.match(first.reserve('Bob', '192.0.2.1'), { ok: true });
  const second = createLoginThrottle(sqlite);
  t.match(second.reserve('bob', '192.0.2.1'), { ok: false }, 'the same name in another case, after a restart');
  t.match(second.reserve('bob', '192.0.2.9'), { ok: true }, 'another address has its own budget');
  second.succeeded('bob', '192.0.2.1');
  t.match(second.reserve('bob', '192.0.2.1'), { ok: true }, 'a success clears the count');
});

t.test('a success forgets the failures of its own address only, and successes never fill the ceiling', async (t) => {
  const sqlite = freshDatabase(t);
  const throttle = createLoginThrottle(sqlite);
  for (let i = 0; i < 60; i++) {
    t.match(throttle.reserve('alice', '192.0.2.1'), { ok: true });
    throttle.succeeded('alice', '192.0.2.1');
  }
  t.pass('sixty sign-ins in a row are never slowed');
  for (let i = 0; i < 5; i++) throttle.reserve('alice', '203.0.113.7');
  throttle.reserve('alice', '192.0.2.1');
  throttle.succeeded('alice', '192.0.2.1');
  t.match(throttle.reserve('alice', '203.0.113.7'), { ok: false }, 'the owner signing in elsewhere does not reset the guesser');
});
