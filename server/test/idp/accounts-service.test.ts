import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { findAppRoot } from '../../src/kernel/config.js';
import { openDatabase } from '../../src/kernel/db/client.js';
import { createAccountsService } from '../../src/idp/accounts-service.js';
import { createLoginThrottle } from '../../src/idp/login-throttle.js';
import { hashPassword, verifyPassword } from '../../src/idp/passwords.js';
import { escapeHtml } from '../../src/idp/pages.js';

function freshDb(t: { teardown(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'shower-beer-idp-'));
  const database = openDatabase(join(dir, 'test.db'), join(findAppRoot(), 'migrations'));
  t.teardown(() => {
    database.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return database;
}

t.test('scrypt hashes verify the right password only', async (t) => {
  const hash = await hashPassword('correct horse');
  t.match(hash, /^scrypt\$32768\$8\$1\$/);
  t.ok(await verifyPassword('correct horse', hash));
  t.notOk(await verifyPassword('correct horsE', hash));
  t.notOk(await verifyPassword('', hash));
  t.not(await hashPassword('correct horse'), hash, 'salted');
  // Parameters travel with the hash: a cheaper hash made earlier still verifies.
  const cheap = await hashPassword('pw', { N: 1024, r: 8, p: 1 });
  t.ok(await verifyPassword('pw', cheap));
  for (const broken of ['', 'plain', 'scrypt$x$8$1$a$b', `scrypt$${2 ** 30}$8$1$AAAA$${'A'.repeat(43)}`, 'bcrypt$1$2$3$4$5']) {
    t.notOk(await verifyPassword('pw', broken), `an unreadable hash is a mismatch, not a crash: ${broken.slice(0, 20)}`);
  }
});

t.test('the accounts service signs up and signs in', async (t) => {
  const accounts = createAccountsService(freshDb(t).sqlite);
  const created = await accounts.signUp({ username: ' alice ', email: 'alice@example.com ', password: 'hoppy lager 42' });
  t.ok(created.ok);
  if (!created.ok) return;
  t.equal(created.account.username, 'alice', 'trimmed');
  t.notOk('passwordHash' in created.account, 'the hash never leaves the service');

  const again = await accounts.signUp({ username: 'Alice', email: 'ALICE@example.com', password: 'hoppy lager 42' });
  t.same(again, {
    ok: false,
    errors: {
      username: 'That username is already taken. Please choose another.',
      email: 'An account with this email already exists. Sign in instead.',
    },
  });
  const bad = await accounts.signUp({ username: 'a!', email: 'nope', password: 'short' });
  t.same(Object.keys(bad.ok ? {} : bad.errors).sort(), ['email', 'password', 'username']);
  const long = await accounts.signUp({ username: 'bob', email: 'bob@example.com', password: 'x'.repeat(257) });
  t.match(long, { ok: false, errors: { password: 'Use a password of at most 256 characters.' } });

  t.match(await accounts.signIn('ALICE', 'hoppy lager 42'), { ok: true, account: { username: 'alice' } });
  t.match(await accounts.signIn('alice@EXAMPLE.com', 'hoppy lager 42'), { ok: true });
  t.same(await accounts.signIn('alice', 'password2'), { ok: false, reason: 'invalid' });
  t.same(await accounts.signIn('nobody', 'hoppy lager 42'), { ok: false, reason: 'invalid' });
  t.equal(accounts.findById(created.account.id)?.email, 'alice@example.com');
});

t.test('two sign-ups racing for one name: one wins, the other is told it is taken', async (t) => {
  const accounts = createAccountsService(freshDb(t).sqlite);
  const [a, b] = await Promise.all([
    accounts.signUp({ username: 'racer', email: 'one@example.com', password: 'hoppy lager 42' }),
    accounts.signUp({ username: 'RACER', email: 'two@example.com', password: 'hoppy lager 42' }),
  ]);
  t.equal([a, b].filter((r) => r.ok).length, 1);
  const loser = a.ok ? b : a;
  t.match(loser, { ok: false, errors: { username: 'That username is already taken. Please choose another.' } });
});

t.test('the account lock lifts after 15 minutes and a success clears the count', async (t) => {
  let now = 1_000_000;
  const { sqlite } = freshDb(t);
  const throttle = createLoginThrottle(sqlite, { now: () => now });
  const accounts = createAccountsService(sqlite, { throttle });
  await accounts.signUp({ username: 'alice', email: 'alice@example.com', password: 'hoppy lager 42' });

  for (let i = 0; i < 4; i++) await accounts.signIn('alice', 'wrong');
  t.match(await accounts.signIn('alice', 'hoppy lager 42'), { ok: true }, 'four failures do not lock');
  for (let i = 0; i < 4; i++) await accounts.signIn('alice', 'wrong');
  t.match(await accounts.signIn('alice', 'hoppy lager 42'), { ok: true }, 'the success reset the count');

  for (let i = 0; i < 5; i++) {
    now += 60_000;
    await accounts.signIn('alice', 'wrong');
  }
  const locked = await accounts.signIn('alice', 'hoppy lager 42');
  t.match(locked, { ok: false, reason: 'throttled' });
  t.equal(locked.ok === false && locked.reason === 'throttled' ? locked.retryAfterSeconds : 0, 11 * 60, 'until the oldest failure is 15 minutes old');
  now += 11 * 60_000;
  t.match(await accounts.signIn('alice', 'hoppy lager 42'), { ok: true }, 'unlocked once the window passed');
});

t.test('the throttle forgets attempts that left the window', async (t) => {
  let now = 1_000_000;
  const { sqlite } = freshDb(t);
  const throttle = createLoginThrottle(sqlite, { maxAttempts: 1, now: () => now });
  for (let i = 0; i < 600; i++) throttle.reserve(`name${i}`, '192.0.2.1');
  now += 16 * 60_000;
  for (let i = 0; i < 600; i++) throttle.reserve(`other${i}`, '192.0.2.1');
  const kept = sqlite.prepare('SELECT count(*) FROM login_attempts WHERE key LIKE ?').pluck().get('name%') as number;
  t.equal(kept, 0, 'old rows are swept, so a spray of names does not grow the table for ever');
});

t.test('escapeHtml neutralises markup and attribute quotes', async (t) => {
  t.equal(escapeHtml(`<a href="x" onclick='y'>&\``), '&#60;a href=&#34;x&#34; onclick=&#39;y&#39;&#62;&#38;&#96;');
  t.equal(escapeHtml('Beer Lover 🍺'), 'Beer Lover 🍺');
});
