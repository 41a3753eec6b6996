import t from 'tap';
import { createRevocations } from '../../src/kernel/auth/revocations.js';
import { bearer, buildTestApp, freshDatabase } from '../helpers.js';
import { fragmentOf, signIn, signUp } from '../idp/idp-helpers.js';

const alice = { username: 'alice', email: 'alice@example.com', password: 'correct horse battery' };

t.test('after logout the token is refused everywhere; the owner’s other sessions go on', async (t) => {
  const { app, config } = await buildTestApp(t, { RATE_LIMIT_AUTH_PER_MINUTE: '1000' });
  const created = await signUp(app, config, alice);
  const token = fragmentOf(String(created.headers.location)).get('access_token')!;
  const other = fragmentOf(String((await signIn(app, config, 'alice', alice.password)).headers.location)).get('access_token')!;

  t.equal((await app.inject({ url: '/api/user-posts', headers: bearer(token) })).statusCode, 200, 'works before');
  const out = await app.inject({ method: 'DELETE', url: '/api/session', headers: bearer(token) });
  t.equal(out.statusCode, 200);
  t.same(out.json(), { signedOut: true });

  const after = await app.inject({ url: '/api/user-posts', headers: bearer(token) });
  t.equal(after.statusCode, 401, 'the API refuses the signed-out token');
  t.same(after.json(), { error: 'unauthorized', message: 'This session has ended (signed out). Please sign in again.' });
  t.equal((await app.inject({ url: '/oauth2/userInfo', headers: bearer(token) })).statusCode, 401, 'so does userInfo');
  t.equal((await app.inject({ method: 'DELETE', url: '/api/session', headers: bearer(token) })).statusCode, 401, 'logging out twice changes nothing');
  t.equal((await app.inject({ url: '/api/user-posts', headers: bearer(other) })).statusCode, 200, 'another sign-in stays valid');
});

t.test('revocations are kept until the token would expire, then swept', async (t) => {
  let now = 1_000_000_000_000;
  const sqlite = freshDatabase(t);
  const revocations = createRevocations(sqlite, () => now);
  const exp = now / 1000 + 900;
  t.ok(revocations.revoke({ sub: 's', jti: 'a', exp }));
  t.ok(revocations.isRevoked({ sub: 's', jti: 'a' }));
  t.notOk(revocations.isRevoked({ sub: 's', jti: 'b' }));
  t.notOk(revocations.revoke({ sub: 's', exp }), 'a token without jti cannot be named');
  now += 901_000;
  revocations.revoke({ sub: 's', jti: 'c', exp: now / 1000 + 900 });
  t.equal(sqlite.prepare('SELECT count(*) FROM revoked_tokens').pluck().get(), 1, 'the expired one is gone');
});

t.test('a logout in another process is refused within a second; in this one at once', async (t) => {
  let now = 1_000_000_000_000;
  const sqlite = freshDatabase(t);
  const here = createRevocations(sqlite, () => now);
  const elsewhere = createRevocations(sqlite, () => now); // a second process: its own memory, the same table
  const claims = { sub: 's', jti: 'x', exp: now / 1000 + 900 };
  t.notOk(elsewhere.isRevoked(claims), 'valid before');
  here.revoke(claims);
  t.ok(here.isRevoked(claims), 'refused at once where the logout happened');
  now += 999;
  t.notOk(elsewhere.isRevoked(claims), 'the other process may still accept it for under a second');
  now += 2;
  t.ok(elsewhere.isRevoked(claims), 'and refuses it once a second has passed');
  t.ok(createRevocations(sqlite, () => now).isRevoked(claims), 'a process started later refuses it');
});

t.test('ending all sessions of an account (a password change): older tokens refused everywhere, the kept one and newer ones pass', async (t) => {
  let now = 1_000_000_000_500;
  const sqlite = freshDatabase(t);
  const here = createRevocations(sqlite, () => now);
  const elsewhere = createRevocations(sqlite, () => now);
  const second = Math.floor(now / 1000);
  const older = { sub: 'a', jti: 'old', iat: second - 60 };
  const sameSecond = { sub: 'a', jti: 'twin', iat: second };
  const kept = { sub: 'a', jti: 'kept', iat: second };
  const someoneElse = { sub: 'b', jti: 'other', iat: second - 60 };
  t.notOk(elsewhere.isEndedByCutoff(older), 'valid before');

  here.endAllSessions('a', 'kept');
  t.ok(here.isEndedByCutoff(older), 'refused at once in this process');
  t.ok(here.isEndedByCutoff(sameSecond), 'a token from the same second is refused too');
  t.notOk(here.isEndedByCutoff(kept), 'the token the change answered stays valid');
  t.notOk(here.isEndedByCutoff(someoneElse), 'other accounts are untouched');
  t.notOk(here.isEndedByCutoff({ sub: 'a', jti: 'new', iat: second + 1 }), 'a later sign-in works');
  t.ok(here.isEndedByCutoff({ sub: 'a', jti: 'no-iat' }), 'a token that cannot show when it was issued is refused');

  t.notOk(elsewhere.isEndedByCutoff(older), 'another process remembered the account for up to a second');
  now += 1_000;
  t.ok(elsewhere.isEndedByCutoff(older), 'and refuses it after that');
  t.notOk(elsewhere.isEndedByCutoff(kept));
});

t.test('a sign-in in the second of a password change waits for the next second, so its token is not refused', async (t) => {
  let now = 1_000_000_000_300;
  const sqlite = freshDatabase(t);
  const revocations = createRevocations(sqlite, () => now);
  t.equal(revocations.msUntilPastCutoff('a'), 0, 'no cutoff: no wait');
  revocations.endAllSessions('a');
  t.equal(revocations.msUntilPastCutoff('a'), 700, 'the rest of the second');
  now += 700;
  t.equal(revocations.msUntilPastCutoff('a'), 0);
  t.notOk(revocations.isEndedByCutoff({ sub: 'a', jti: 'later', iat: Math.floor(now / 1000) }), 'a token issued then passes');
});
