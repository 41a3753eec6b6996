import { randomBytes } from 'node:crypto';
import t from 'tap';
import { validateSignUp } from '../../src/idp/accounts-service.js';
import { WEAK_MESSAGES, weakPasswordReason } from '../../src/idp/password-strength.js';
import { buildTestApp } from '../helpers.js';
import { signIn, signUp } from './idp-helpers.js';

t.test('common, breached and personal passwords are refused with the reason', async (t) => {
  for (const weak of ['password', '12345678', 'password1', 'Password123!', 'qwertyuiop', 'iloveyou2', 'abcd1234']) {
    t.equal(weakPasswordReason(weak), WEAK_MESSAGES.common, weak);
  }
  t.equal(weakPasswordReason('alice2024', ['alice']), WEAK_MESSAGES.personal, 'the username with a year');
  t.equal(weakPasswordReason('aaaaaaaaaaaaaaaa'), WEAK_MESSAGES.guessable, 'a repeat');
  t.same(validateSignUp({ username: 'bob', email: 'bob@example.com', password: 'bob@example.com' }), { password: WEAK_MESSAGES.personal }, 'the e-mail as password');
});

t.test('good passwords of 8 to 256 characters pass, with no composition rules', async (t) => {
  const good = [
    'k7#Qv!2m', // 8 random characters
    'staple orange lantern', // lower-case words only
    `Pw-${randomBytes(6).toString('hex')}!`, // what the browser suite signs up with
    'correct horse battery staple '.repeat(3).slice(0, 64), // 64 characters
    '🍺 bière fraîche sous la douche', // any characters
  ];
  for (const password of good) t.same(validateSignUp({ username: 'bob', email: 'bob@example.com', password }), {}, password);
  t.same(validateSignUp({ username: 'bob', email: 'bob@example.com', password: randomBytes(192).toString('base64') }), {}, '256 characters');
});

t.test('the sign-up page refuses a weak password and creates nothing', async (t) => {
  const { app, config } = await buildTestApp(t, { RATE_LIMIT_AUTH_PER_MINUTE: '1000' });
  for (const password of ['password', '12345678']) {
    const res = await signUp(app, config, { username: 'alice', email: 'alice@example.com', password });
    t.equal(res.statusCode, 400, password);
    t.equal(res.headers.location, undefined);
    t.ok(res.body.includes(WEAK_MESSAGES.common.replaceAll("'", '&#39;').replaceAll('’', '’')), `${password}: says why`);
    t.match(res.body, /aria-invalid="true"/);
  }
  const nobody = await signIn(app, config, 'alice', 'password');
  t.match(nobody.body, /Wrong username\/email or password\./, 'no account was made');
  t.equal((await signUp(app, config, { username: 'alice', email: 'alice@example.com', password: 'k7#Qv!2m' })).statusCode, 303);
});
