import type { FastifyInstance } from 'fastify';
import t, { type Test } from 'tap';
import { PASSWORD_CHANGED } from '../../src/kernel/auth/revocations.js';
import type { Config } from '../../src/kernel/config.js';
import { createAccountsService } from '../../src/idp/accounts-service.js';
import type { MailMessage } from '../../src/idp/mailer.js';
import { createPasswordResets, RESET_MESSAGES, RESET_TTL_MS } from '../../src/idp/password-resets.js';
import { FORGOT_TEXTS } from '../../src/idp/pages.js';
import { bearer, buildTestApp, freshDatabase } from '../helpers.js';
import { authorizeQuery, cookieOf, csrfFieldOf, fragmentOf, signIn, signUp } from './idp-helpers.js';

const FAST_HASH = { N: 2 ** 10, r: 8, p: 1 };
const olga = { username: 'olga', email: 'olga@example.com', password: 'operator pale ale 7' };
const bert = { username: 'bert', email: 'bert@example.com', password: 'correct horse battery' };
const NEW_PASSWORD = 'quiet lager morning 42';

const tokenOf = (res: { headers: Record<string, unknown> }) => fragmentOf(String(res.headers.location)).get('access_token')!;
const status = async (app: FastifyInstance, token: string) => (await app.inject({ url: '/api/me', headers: bearer(token) })).statusCode;

/** olga (the first account: an operator) and bert, each signed in. */
async function twoPeople(t: Test, env: Record<string, string> = {}) {
  const built = await buildTestApp(t, { RATE_LIMIT_AUTH_PER_MINUTE: '1000', ...env });
  const olgaToken = tokenOf(await signUp(built.app, built.config, olga));
  const bertToken = tokenOf(await signUp(built.app, built.config, bert));
  return { ...built, olgaToken, bertToken };
}

async function openReset(app: FastifyInstance, url: string) {
  const res = await app.inject({ url: new URL(url).pathname + new URL(url).search });
  return { res, cookie: res.statusCode === 200 ? cookieOf(res.headers['set-cookie']) : '', csrf: res.statusCode === 200 ? csrfFieldOf(res.body) : '' };
}

async function submitReset(app: FastifyInstance, url: string, password: string) {
  const page = await openReset(app, url);
  if (page.res.statusCode !== 200) return page.res;
  const token = new URL(url).searchParams.get('token')!;
  return app.inject({
    method: 'POST',
    url: '/oauth2/reset',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: page.cookie },
    payload: new URLSearchParams({ token, password, csrf_token: page.csrf }).toString(),
  });
}

const makeLink = (app: FastifyInstance, operatorToken: string, username: string) =>
  app.inject({ method: 'POST', url: `/api/admin/users/${username}/password-reset`, headers: bearer(operatorToken) });

t.test('changing the password ends every other session; the one that changed it goes on with a new token', async (t) => {
  const { app, config, bertToken } = await twoPeople(t);
  const phone = tokenOf(await signIn(app, config, 'bert', bert.password));
  const change = (body: object, token = bertToken) =>
    app.inject({ method: 'PUT', url: '/api/account/password', headers: bearer(token), payload: body });

  const wrong = await change({ currentPassword: 'not my password', newPassword: NEW_PASSWORD });
  t.equal(wrong.statusCode, 400);
  t.same(wrong.json(), { error: 'wrong_password', message: 'That is not your current password. Nothing was changed.' });
  const weak = await change({ currentPassword: bert.password, newPassword: 'password1' });
  t.equal(weak.statusCode, 400);
  t.equal(weak.json().error, 'weak_password');
  t.match(weak.json().message, /commonly used/);
  const short = await change({ currentPassword: bert.password, newPassword: 'a1!' });
  t.same(short.json(), { error: 'weak_password', message: 'Use a password of at least 8 characters.' });
  t.equal((await change({ currentPassword: bert.password })).statusCode, 400, 'a missing field is a 400');
  t.equal(await status(app, phone), 200, 'nothing changed: the other session still works');
  t.equal((await signIn(app, config, 'bert', bert.password)).statusCode, 303, 'and the old password still signs in');

  const done = await change({ currentPassword: bert.password, newPassword: NEW_PASSWORD });
  t.equal(done.statusCode, 200);
  const fresh = done.json().accessToken as string;
  t.equal(done.json().expiresIn, config.auth.tokenTtlSeconds);
  t.equal(await status(app, fresh), 200, 'the new token of the changing session works');
  for (const [name, token] of [['the other device', phone], ['the old token of this session', bertToken]] as const) {
    const refused = await app.inject({ url: '/api/me', headers: bearer(token) });
    t.equal(refused.statusCode, 401, `${name} is refused`);
    t.same(refused.json(), { error: 'unauthorized', message: PASSWORD_CHANGED });
  }
  t.equal((await app.inject({ url: '/oauth2/userInfo', headers: bearer(phone) })).statusCode, 401, 'userInfo refuses it too');
  t.equal((await signIn(app, config, 'bert', bert.password)).statusCode, 400, 'the old password no longer signs in');
  const later = tokenOf(await signIn(app, config, 'bert', NEW_PASSWORD));
  t.equal(await status(app, later), 200, 'the new one does, and a later sign-in works');
});

t.test('guessing the current password through a stolen session is throttled like sign-in', async (t) => {
  const { app, bertToken } = await twoPeople(t, { LOGIN_MAX_ATTEMPTS: '3' });
  const guess = () =>
    app.inject({ method: 'PUT', url: '/api/account/password', headers: bearer(bertToken), payload: { currentPassword: 'guess', newPassword: NEW_PASSWORD } });
  for (let i = 0; i < 3; i++) t.equal((await guess()).statusCode, 400);
  const limited = await guess();
  t.equal(limited.statusCode, 429);
  t.equal(limited.json().error, 'rate_limited');
  t.ok(Number(limited.headers['retry-after']) > 0);
  const right = await app.inject({ method: 'PUT', url: '/api/account/password', headers: bearer(bertToken), payload: { currentPassword: bert.password, newPassword: NEW_PASSWORD } });
  t.equal(right.statusCode, 429, 'even the right password waits: the limit is reached');
});

t.test('an operator’s reset link: single use, old tokens refused, the new password follows the sign-up rules', async (t) => {
  const { app, config, olgaToken, bertToken } = await twoPeople(t);
  t.equal((await makeLink(app, bertToken, 'olga')).statusCode, 403, 'only operators make links');
  t.equal((await makeLink(app, olgaToken, 'nobody')).statusCode, 404);
  const made = await makeLink(app, olgaToken, 'bert');
  t.equal(made.statusCode, 200);
  const { url, expiresAt, emailed } = made.json();
  t.equal(emailed, false, 'no SMTP_URL: not e-mailed');
  t.match(url, new RegExp(`^${config.publicUrl}/oauth2/reset\\?token=[A-Za-z0-9_-]{43}$`), '256 random bits in the link');
  t.ok(Math.abs(Date.parse(expiresAt) - Date.now() - RESET_TTL_MS) < 60_000, 'valid for 24 hours');
  const stored = app.database.sqlite.prepare('SELECT token_hash FROM password_resets').pluck().all() as string[];
  t.equal(stored.length, 1);
  t.not(stored[0], new URL(url).searchParams.get('token'), 'only a hash is stored');

  const page = await openReset(app, url);
  t.equal(page.res.statusCode, 200);
  t.match(page.res.body, /Choose a new password/);
  t.match(page.res.body, /<strong>bert<\/strong>/);

  const weak = await submitReset(app, url, 'bert1234');
  t.equal(weak.statusCode, 400, 'a weak password is refused on the page');
  t.match(weak.body, /aria-invalid="true"/);
  t.equal(await status(app, bertToken), 200, 'nothing changed: the session goes on');
  t.equal((await signIn(app, config, 'bert', bert.password)).statusCode, 303, 'and the old password still works');

  const done = await submitReset(app, url, NEW_PASSWORD);
  t.equal(done.statusCode, 200);
  t.match(done.body, /Your password is changed/);
  t.equal(await status(app, bertToken), 401, 'resetting revokes the old tokens');
  t.equal((await signIn(app, config, 'bert', bert.password)).statusCode, 400, 'the old password is gone');
  t.equal((await signIn(app, config, 'bert', NEW_PASSWORD)).statusCode, 303, 'the new one signs in');

  const again = await app.inject({ url: new URL(url).pathname + new URL(url).search });
  t.equal(again.statusCode, 410, 'used twice: a clear refusal');
  t.match(again.body, RESET_MESSAGES.used.replace(/[.()]/g, '\\$&').slice(0, 40));
  const reused = await app.inject({
    method: 'POST',
    url: '/oauth2/reset',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: page.cookie },
    payload: new URLSearchParams({ token: new URL(url).searchParams.get('token')!, password: 'another fine pilsner 9', csrf_token: page.csrf }).toString(),
  });
  t.equal(reused.statusCode, 410, 'posting it again is refused too');
  t.equal((await signIn(app, config, 'bert', 'another fine pilsner 9')).statusCode, 400, 'and changed nothing');
  t.equal((await app.inject({ url: '/oauth2/reset?token=nonsense' })).statusCode, 400, 'a made-up link');
});

t.test('a reset link expires after 24 hours, and a newer link replaces it', async (t) => {
  let now = 1_800_000_000_000;
  const sqlite = freshDatabase(t);
  const accounts = createAccountsService(sqlite, { hashParams: FAST_HASH, now: () => now });
  const signed = await accounts.signUp(bert);
  if (!signed.ok) throw new Error('sign-up failed');
  const resets = createPasswordResets(sqlite, accounts, { now: () => now });
  const first = resets.create(signed.account.id, null);
  now += RESET_TTL_MS - 1;
  t.same(resets.check(first.token), { ok: true, accountId: signed.account.id }, 'still valid just before 24 hours');
  now += 1;
  t.same(resets.check(first.token), { ok: false, problem: 'expired' });
  t.same(await resets.redeem(first.token, NEW_PASSWORD), { ok: false, problem: 'expired' }, 'an expired link changes nothing');
  t.equal((await accounts.signIn('bert', bert.password)).ok, true);

  const second = resets.create(signed.account.id, null);
  const third = resets.create(signed.account.id, null);
  t.same(resets.check(second.token), { ok: false, problem: 'unknown' }, 'the newer link replaced it');
  // Two tabs submit the same link at once: one password wins, the other is told the link is used.
  const both = await Promise.all([resets.redeem(third.token, NEW_PASSWORD), resets.redeem(third.token, 'another fine pilsner 9')]);
  t.same(both.map((r) => r.ok).sort(), [false, true]);
  t.ok(both.some((r) => !r.ok && r.problem === 'used'));
});

async function withMail(t: Test, env: Record<string, string> = {}) {
  const built = await twoPeople(t, { SMTP_URL: 'smtp://127.0.0.1:1', ...env });
  const sent: MailMessage[] = [];
  built.app.idp.mailer = { send: async (m) => void sent.push(m) };
  return { ...built, sent };
}

async function askReset(app: FastifyInstance, config: Config, identifier: string, address = '203.0.113.7') {
  const form = await app.inject({ url: `/oauth2/forgot?${authorizeQuery(config)}` });
  const body = new URLSearchParams(authorizeQuery(config));
  body.set('username', identifier);
  body.set('csrf_token', csrfFieldOf(form.body));
  return app.inject({
    method: 'POST',
    url: '/oauth2/forgot',
    remoteAddress: address,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieOf(form.headers['set-cookie']) },
    payload: body.toString(),
  });
}

t.test('"Forgot password?" answers the same whether or not the account exists, and e-mails a working link', async (t) => {
  const { app, config, sent, bertToken } = await withMail(t);
  const signInPage = await app.inject({ url: `/oauth2/authorize?${authorizeQuery(config)}` });
  t.match(signInPage.body, /<a href="\/oauth2\/forgot\?[^"]+">Forgot password\?<\/a>/, 'the sign-in page links it');

  const known = await askReset(app, config, 'bert@example.com');
  const unknown = await askReset(app, config, 'nobody@example.com');
  const unknownName = await askReset(app, config, 'nobody');
  t.equal(known.statusCode, 200);
  t.equal(unknown.statusCode, 200);
  t.equal(unknownName.statusCode, 200);
  t.equal(known.body, unknown.body, 'the same page for an unknown e-mail');
  t.equal(known.body, unknownName.body, 'and for an unknown name');
  t.match(known.body, FORGOT_TEXTS.sent.slice(0, 60));
  await new Promise((r) => setImmediate(r));
  t.equal(sent.length, 1, 'one e-mail, to the account that exists');
  t.equal(sent[0]!.to, 'bert@example.com');
  const link = /http:\/\/\S+\/oauth2\/reset\?token=[A-Za-z0-9_-]{43}/.exec(sent[0]!.text)![0];

  await askReset(app, config, 'bert');
  await new Promise((r) => setImmediate(r));
  t.equal(sent.length, 1, 'asking again within minutes sends no second e-mail (the first link still works)');

  t.equal((await submitReset(app, link, NEW_PASSWORD)).statusCode, 200);
  t.equal(await status(app, bertToken), 401, 'old sessions end');
  t.equal((await signIn(app, config, 'bert', NEW_PASSWORD)).statusCode, 303);
});

t.test('"Forgot password?" is rate-limited like sign-in, the same for accounts that do not exist', async (t) => {
  const { app, config, sent } = await withMail(t, { LOGIN_MAX_ATTEMPTS: '3' });
  for (const name of ['bert', 'nobody']) {
    for (let i = 0; i < 3; i++) t.equal((await askReset(app, config, name)).statusCode, 200);
    const limited = await askReset(app, config, name);
    t.equal(limited.statusCode, 429, `the 4th request for ${name} waits`);
    t.match(limited.body, /Too many reset requests/);
    t.ok(Number(limited.headers['retry-after']) > 0);
  }
  t.equal((await askReset(app, config, 'bert', '198.51.100.9')).statusCode, 200, 'another address has its own count');
  t.equal((await signIn(app, config, 'bert', bert.password)).statusCode, 303, 'reset requests never use up the sign-in budget');
  await new Promise((r) => setImmediate(r));
  t.equal(sent.length, 1);
});

t.test('without SMTP_URL the page says whom to ask, and no e-mail can be asked for', async (t) => {
  const { app, config, olgaToken } = await twoPeople(t);
  const page = await app.inject({ url: `/oauth2/forgot?${authorizeQuery(config)}` });
  t.equal(page.statusCode, 200);
  // Issue 48: it says who the operator is; with a contact set on the operator page, how to reach them.
  t.match(page.body, 'This server does not send email. Ask its operator, <strong>@olga</strong>, for a password reset link');
  t.equal((await app.inject({ method: 'PUT', url: '/api/admin/instance', headers: { authorization: `Bearer ${olgaToken}` }, payload: { contact: 'olga@example.org' } })).statusCode, 200);
  const withContact = await app.inject({ url: `/oauth2/forgot?${authorizeQuery(config)}` });
  t.match(withContact.body, 'Ask its operators at <a href="mailto:olga@example.org">olga@example.org</a> for a password reset link');
  t.notMatch(page.body, /<form/);
  t.equal((await app.inject({ url: '/oauth2/forgot?client_id=other' })).statusCode, 400, 'a bad link is refused like sign-in');
  t.equal(app.database.sqlite.prepare('SELECT count(*) FROM password_resets').pluck().get(), 0);
  const link = (await makeLink(app, olgaToken, 'bert')).json() as { emailed: boolean; url: string };
  t.equal(link.emailed, false);
  // An operator act, so in the moderation log (issue 48): whose account, never the link.
  const overview = await app.inject({ url: '/api/admin/overview', headers: { authorization: `Bearer ${olgaToken}` } });
  t.match(overview.json().actions, [{ operator: 'olga', action: 'make_reset_link', target: 'bert' }]);
  t.notMatch(overview.body, new URL(link.url).searchParams.get('token')!, 'the token is not in the log');
});
