import t from 'tap';
import { loadConfig } from '../../src/kernel/config.js';
import { createInstanceRepository } from '../../src/registration/instance-repository.js';
import { createAccountsService } from '../../src/idp/accounts-service.js';
import { bearer, buildTestApp } from '../helpers.js';
import { openForm, signIn, submit } from '../idp/idp-helpers.js';
import { countUsers, keycloakApp, signUpWith, tokenOf } from './registration-helpers.js';

const setMode = async (app: Awaited<ReturnType<typeof buildTestApp>>['app'], operatorToken: string, registrationMode: string) => {
  const res = await app.inject({ method: 'PUT', url: '/api/admin/instance', headers: bearer(operatorToken), payload: { registrationMode } });
  if (res.statusCode !== 200) throw new Error(res.body);
};

/** The embedded provider's first account: the operator, let in whatever the mode. */
async function embeddedWithOperator(t: Parameters<typeof buildTestApp>[0], env: Record<string, string> = {}) {
  const built = await buildTestApp(t, env);
  const res = await signUpWith(built.app, built.config, { username: 'keeper' });
  if (res.statusCode !== 303) throw new Error(res.body);
  return { ...built, operator: tokenOf(res.headers.location) };
}

const makeInvite = async (app: Awaited<ReturnType<typeof buildTestApp>>['app'], token: string, maxUses = 1, expiresInHours = 24) => {
  const res = await app.inject({ method: 'POST', url: '/api/invites', headers: bearer(token), payload: { expiresInHours, maxUses } });
  if (res.statusCode !== 200) throw new Error(res.body);
  return res.json() as { code: string; url: string; invite: { id: number; usesLeft: number } };
};

t.test('REGISTRATION_MODE sets a new server\'s mode; the default is open; an unknown one stops the start', async (t) => {
  t.equal(loadConfig({ DATA_DIR: '/tmp/x' }).registrationMode, 'open');
  t.throws(() => loadConfig({ DATA_DIR: '/tmp/x', REGISTRATION_MODE: 'friends' }), /REGISTRATION_MODE must be one of open, approval, invite, closed/);
  const { app } = await buildTestApp(t, { REGISTRATION_MODE: 'invite' });
  const res = await app.inject({ method: 'GET', url: '/api/instance' });
  t.equal(res.statusCode, 200, 'no token needed');
  t.match(res.json(), { name: 'Shower Beer', description: '', rules: [], registrationMode: 'invite', membersCanInvite: false });
  // What the operator chose is kept: a restart with another REGISTRATION_MODE does not undo it.
  t.equal(createInstanceRepository(app.database.sqlite, 'closed').get().registrationMode, 'invite');
});

t.test('open: anyone joins, through the embedded sign-up and through Keycloak', async (t) => {
  const embedded = await embeddedWithOperator(t);
  const res = await signUpWith(embedded.app, embedded.config, { username: 'walkin' });
  t.equal(res.statusCode, 303);
  const posts = await embedded.app.inject({ method: 'GET', url: '/api/user-posts', headers: bearer(tokenOf(res.headers.location)) });
  t.equal(posts.statusCode, 200);

  const kc = await keycloakApp(t);
  const first = await kc.app.inject({ method: 'GET', url: '/api/user-posts', headers: bearer(await kc.token('kc-1', 'walkin')) });
  t.equal(first.statusCode, 200, first.body);
  t.equal(first.json().username, 'walkin');
});

t.test('closed: no sign-up with either provider, nothing written; npm run user:add still works', async (t) => {
  const { app, config, operator } = await embeddedWithOperator(t);
  // A sign-up form opened before the switch, sent after it.
  const form = await openForm(app, config, 'signup');
  await setMode(app, operator, 'closed');
  const before = countUsers(app);
  const page = await app.inject({ method: 'GET', url: `/oauth2/signup?response_type=token&client_id=shower-beer&redirect_uri=${encodeURIComponent(`${config.publicUrl}/app/account`)}` });
  t.equal(page.statusCode, 403);
  t.match(page.body, /Sign-up is closed/);
  const post = await submit(app, config, 'signup', { username: 'latecomer', email: 'late@example.test', password: 'quiet harbour lantern', csrf_token: form.csrf }, form.cookie);
  t.equal(post.statusCode, 403);
  t.match(post.body, /not taking new accounts/);
  t.equal((app.database.sqlite.prepare('SELECT count(*) AS n FROM idp_accounts WHERE username = ?').get('latecomer') as { n: number }).n, 0, 'no sign-in account either');
  t.equal(countUsers(app), before);

  // What scripts/user-add.ts does: the account and its users row, outside the mode.
  const made = await createAccountsService(app.database.sqlite).signUp({ username: 'handmade', email: 'hand@example.test', password: 'quiet harbour lantern' });
  t.ok(made.ok);
  if (made.ok) app.users.upsertFromClaims(made.account.id, made.account.username, made.account.email);
  const signedIn = await signIn(app, config, 'handmade', 'quiet harbour lantern');
  t.equal(signedIn.statusCode, 303, 'a person added from the command line signs in');
  t.equal((await app.inject({ method: 'GET', url: '/api/user-posts', headers: bearer(tokenOf(signedIn.headers.location)) })).statusCode, 200);

  const kc = await keycloakApp(t, { REGISTRATION_MODE: 'closed' });
  const refused = await kc.app.inject({ method: 'GET', url: '/api/user-posts', headers: bearer(await kc.token('kc-9', 'stranger')) });
  t.equal(refused.statusCode, 403);
  t.match(refused.json(), { error: 'registration_closed', message: 'This server is not taking new accounts.' });
  t.equal(countUsers(kc.app), 0, 'no row for the refused person');
  const op = await kc.app.inject({ method: 'GET', url: '/api/me', headers: bearer(await kc.token('kc-op', 'boss', true)) });
  t.equal(op.statusCode, 200, 'Keycloak\'s operator role gets in even when closed (someone has to open it)');
});

t.test('invite: the embedded sign-up asks for the code; Keycloak\'s first sign-in brings it as X-Invite-Code', async (t) => {
  const { app, config, operator } = await embeddedWithOperator(t);
  await setMode(app, operator, 'invite');
  const { code, url } = await makeInvite(app, operator, 2);
  t.match(url, new RegExp(`^http://localhost:3000/\\?invite=${code}$`));
  t.ok(code.length >= 22 && /^[A-Za-z0-9_-]+$/.test(code), 'at least 128 bits of base64url');

  const none = await signUpWith(app, config, { username: 'nocode' });
  t.equal(none.statusCode, 400);
  t.match(none.body, /Shower Beer is invite-only: an account here needs the code of an invite link\./);
  const wrong = await signUpWith(app, config, { username: 'guesser' }, { invite: 'A'.repeat(24) });
  t.equal(wrong.statusCode, 403);
  t.match(wrong.body, /This invite link is not valid/);
  t.equal((app.database.sqlite.prepare('SELECT count(*) AS n FROM idp_accounts').get() as { n: number }).n, 1, 'refused sign-ups leave no account');

  const page = await app.inject({ method: 'GET', url: `/oauth2/signup?response_type=token&client_id=shower-beer&redirect_uri=${encodeURIComponent(`${config.publicUrl}/app/account`)}&invite=${code}` });
  t.match(page.body, new RegExp(`id="invite" name="invite" type="text"[^>]*value="${code}"`), 'the link\'s code is filled in');
  const friend = await signUpWith(app, config, { username: 'friend' }, {}, { invite: code });
  t.equal(friend.statusCode, 303, friend.body);
  t.equal((await app.inject({ method: 'GET', url: '/api/user-posts', headers: bearer(tokenOf(friend.headers.location)) })).statusCode, 200);

  const list = (await app.inject({ method: 'GET', url: '/api/invites', headers: bearer(operator) })).json();
  t.match(list.invites[0], { maxUses: 2, uses: 1, usesLeft: 1, state: 'active', createdBy: 'keeper' });

  const kc = await keycloakApp(t, { REGISTRATION_MODE: 'invite' });
  const kcOperator = await kc.token('kc-op', 'boss', true);
  const kcInvite = await makeInvite(kc.app, kcOperator, 1);
  const without = await kc.app.inject({ method: 'GET', url: '/api/user-posts', headers: bearer(await kc.token('kc-2', 'pal')) });
  t.equal(without.statusCode, 403);
  t.match(without.json(), { error: 'invite_required' });
  const withCode = await kc.app.inject({ method: 'GET', url: '/api/user-posts', headers: { ...bearer(await kc.token('kc-2', 'pal')), 'x-invite-code': kcInvite.code } });
  t.equal(withCode.statusCode, 200, withCode.body);
  // Used up: the next person with the same link is refused, with nothing written.
  const users = countUsers(kc.app);
  const late = await kc.app.inject({ method: 'GET', url: '/api/me', headers: { ...bearer(await kc.token('kc-3', 'late')), 'x-invite-code': kcInvite.code } });
  t.equal(late.statusCode, 403);
  t.match(late.json(), { error: 'invite_invalid', message: /used up/ });
  t.equal(countUsers(kc.app), users);
  // Later requests of a member need no code.
  t.equal((await kc.app.inject({ method: 'GET', url: '/api/me', headers: bearer(await kc.token('kc-2', 'pal')) })).statusCode, 200);
});

t.test('a stranger refused by an invite-only server is told whom to ask, keeps what they typed, and lands on the invite field', async (t) => {
  const { app, config, operator } = await embeddedWithOperator(t);
  const settings = { name: 'Hops & Steam', registrationMode: 'invite', rules: 'Be kind', membersCanInvite: false };
  t.equal((await app.inject({ method: 'PUT', url: '/api/admin/instance', headers: bearer(operator), payload: settings })).statusCode, 200);

  const page = await openForm(app, config, 'signup');
  t.match(page.html, /<p class="lead">Hops &#38; Steam is invite-only: you join with an invite link from someone on it\.<\/p>/, 'said before anyone types');

  // Told first, before the rules: unticked rules do not hide that no account can be made without a link.
  const unticked = await signUpWith(app, config, { username: 'stranger' });
  t.match(unticked.body, /role="alert">Hops &#38; Steam is invite-only/);
  t.notMatch(/<input id="agree"[^>]*>/.exec(unticked.body)![0], / checked/, 'not ticked when it was not');
  const refused = await signUpWith(app, config, { username: 'stranger', password: 'quiet harbour lantern' }, { agree: 'yes' });
  t.equal(refused.statusCode, 400);
  t.match(refused.body, /role="alert">Hops &#38; Steam is invite-only: an account here needs the code of an invite link\.</);
  // The invite field is the one in error: marked, described by whom to ask, focused.
  const invite = /<input id="invite"[^>]*>/.exec(refused.body)![0];
  t.match(invite, /aria-invalid="true"/);
  t.match(invite, /aria-describedby="invite-hint invite-error"|aria-describedby="invite-error invite-hint"/);
  t.match(invite, / autofocus/);
  t.match(refused.body, /<p class="field-error" id="invite-error">No link yet\? Ask the operator of Hops &#38; Steam for one, then open it: it fills in the code for you\.<\/p>/);
  t.notMatch(/<input id="username"[^>]*>/.exec(refused.body)![0], /aria-invalid/, 'the other fields are not marked');
  // What they typed stays, but the password, and the page says so where it is typed.
  t.match(refused.body, /id="username"[^>]*value="stranger"/);
  t.match(refused.body, /id="email"[^>]*value="stranger@example.test"/);
  t.match(/<input id="agree"[^>]*>/.exec(refused.body)![0], / checked/, '"I agree" stays ticked');
  t.notMatch(refused.body, /quiet harbour lantern/);
  t.match(refused.body, /id="password-hint">Type it again: a form that comes back never keeps the password\./);

  // With "Members can invite" on, any member may send a link; a wrong code says why, on the same field.
  t.equal((await app.inject({ method: 'PUT', url: '/api/admin/instance', headers: bearer(operator), payload: { membersCanInvite: true } })).statusCode, 200);
  const wrong = await signUpWith(app, config, { username: 'guesser' }, { agree: 'yes' }, { invite: 'B'.repeat(24) });
  t.equal(wrong.statusCode, 403);
  t.match(wrong.body, /This invite link is not valid/);
  t.match(/<input id="invite"[^>]*>/.exec(wrong.body)![0], /aria-invalid="true"[^>]* autofocus/);
  t.match(wrong.body, /Ask someone on Hops &#38; Steam for one/);
  t.equal(countUsers(app), 1, 'nobody was let in');
});

t.test('the sign-in pages name the server and carry its description, on every message page too', async (t) => {
  const { app, config, operator } = await embeddedWithOperator(t);
  const plain = await app.inject({ method: 'GET', url: '/oauth2/logout' });
  t.match(plain.body, />Go to Shower Beer</);
  t.match(plain.body, /<p class="brand-tagline">Share your shower beer moments<\/p>/, 'the product\'s tagline until the server has a description');
  const settings = { name: 'Hops & Steam', description: 'Friends of the sauna club <3' };
  t.equal((await app.inject({ method: 'PUT', url: '/api/admin/instance', headers: bearer(operator), payload: settings })).statusCode, 200);
  const signedOut = await app.inject({ method: 'GET', url: '/oauth2/logout' });
  t.match(signedOut.body, /<title>You are signed out · Hops &#38; Steam<\/title>/);
  t.match(signedOut.body, /<a class="button" href="http:\/\/localhost:3000\/">Go to Hops &#38; Steam<\/a>/);
  t.match(signedOut.body, /<p class="brand-tagline">Friends of the sauna club &#60;3<\/p>/);
  t.notMatch(signedOut.body, /Shower Beer/, 'the product\'s name is nowhere on the page');
  const reset = await app.inject({ method: 'GET', url: '/oauth2/reset?token=nope' });
  t.match(reset.body, />Go to Hops &#38; Steam</);
  const signIn = await openForm(app, config, 'authorize');
  t.match(signIn.html, /<meta name="description" content="Sign in to Hops &#38; Steam,/);
});

t.test('bad invites: expired, withdrawn, used up: a clear 403 and nothing changes', async (t) => {
  const kc = await keycloakApp(t, { REGISTRATION_MODE: 'invite' });
  const op = await kc.token('kc-op', 'boss', true);
  const expired = await makeInvite(kc.app, op, 5);
  kc.app.database.sqlite.prepare('UPDATE invites SET expires_at = ? WHERE id = ?').run(Date.now() - 1, expired.invite.id);
  const withdrawn = await makeInvite(kc.app, op, 5);
  t.equal((await kc.app.inject({ method: 'DELETE', url: `/api/invites/${withdrawn.invite.id}`, headers: bearer(op) })).statusCode, 200);
  const before = countUsers(kc.app);
  for (const [code, message] of [
    [expired.code, /has expired/],
    [withdrawn.code, /was withdrawn/],
    ['not a code at all', /is not valid/],
  ] as const) {
    const res = await kc.app.inject({ method: 'GET', url: '/api/me', headers: { ...bearer(await kc.token('kc-x', 'hopeful')), 'x-invite-code': code } });
    t.equal(res.statusCode, 403);
    t.match(res.json(), { error: 'invite_invalid', message });
  }
  t.equal(countUsers(kc.app), before);
  const list = (await kc.app.inject({ method: 'GET', url: '/api/invites', headers: bearer(op) })).json();
  t.same(list.invites.map((i: { state: string; uses: number; usesLeft: number }) => [i.state, i.uses, i.usesLeft]), [['revoked', 0, 0], ['expired', 0, 0]]);
  const bad = await kc.app.inject({ method: 'POST', url: '/api/invites', headers: bearer(op), payload: { expiresInHours: 0, maxUses: 1 } });
  t.equal(bad.statusCode, 400);
});

t.test('20 parallel first sign-ins on a one-use invite make exactly one account', async (t) => {
  const kc = await keycloakApp(t, { REGISTRATION_MODE: 'invite' });
  const op = await kc.token('kc-op', 'boss', true);
  const { code, invite } = await makeInvite(kc.app, op, 1);
  const before = countUsers(kc.app);
  const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => kc.token(`racer-${i}`, `racer${i}`)));
  const answers = await Promise.all(
    tokens.map((tok) => kc.app.inject({ method: 'GET', url: '/api/user-posts', headers: { ...bearer(tok), 'x-invite-code': code } })),
  );
  t.equal(answers.filter((a) => a.statusCode === 200).length, 1, 'one is let in');
  t.equal(answers.filter((a) => a.statusCode === 403 && a.json().error === 'invite_invalid').length, 19, 'the others are told the link is used up');
  t.equal(countUsers(kc.app), before + 1, 'exactly one account is made');
  t.equal(kc.app.database.sqlite.prepare<[number], number>('SELECT uses FROM invites WHERE id = ?').pluck().get(invite.id), 1);
});

t.test('parallel sign-ups on the embedded provider with a one-use invite: one account, and the others leave nothing behind', async (t) => {
  const { app, config, operator } = await embeddedWithOperator(t);
  await setMode(app, operator, 'invite');
  const { code, invite } = await makeInvite(app, operator, 1);
  const accounts = () => app.database.sqlite.prepare<[], number>('SELECT count(*) FROM idp_accounts').pluck().get()!;
  const [usersBefore, accountsBefore] = [countUsers(app), accounts()];
  const names = ['anna', 'benno', 'cyril', 'deena', 'eliot'];
  const answers = await Promise.all(names.map((username) => signUpWith(app, config, { username }, {}, { invite: code })));
  const inside = answers.filter((a) => a.statusCode === 303);
  t.equal(inside.length, 1, 'one is let in');
  t.equal(answers.filter((a) => a.statusCode === 403).length, 4, 'the others are told the invite is used up');
  t.equal(countUsers(app), usersBefore + 1, 'one app account');
  t.equal(accounts(), accountsBefore + 1, 'and one sign-in account: the refused ones were undone');
  t.equal(app.database.sqlite.prepare<[number], number>('SELECT uses FROM invites WHERE id = ?').pluck().get(invite.id), 1);
  // A refused name is free again: with a new invite it signs up.
  const loser = names.find((_, i) => answers[i]!.statusCode !== 303)!;
  const again = await makeInvite(app, operator, 1);
  t.equal((await signUpWith(app, config, { username: loser }, {}, { invite: again.code })).statusCode, 303, `${loser} signs up with a new invite`);
});

t.test('approval: new accounts wait with their reason; the operator approves or rejects (both providers)', async (t) => {
  const { app, config, operator } = await embeddedWithOperator(t);
  await setMode(app, operator, 'approval');
  const page = await app.inject({ method: 'GET', url: `/oauth2/signup?response_type=token&client_id=shower-beer&redirect_uri=${encodeURIComponent(`${config.publicUrl}/app/account`)}` });
  t.match(page.body, /Why do you want to join\?/);
  const asked = await signUpWith(app, config, { username: 'newbie' }, { reason: 'Ale from the climbing gym' });
  t.equal(asked.statusCode, 303, 'signed in, to be told to wait');
  const token = tokenOf(asked.headers.location);
  const waiting = await app.inject({ method: 'GET', url: '/api/user-posts', headers: bearer(token) });
  t.equal(waiting.statusCode, 403);
  t.same(waiting.json(), { error: 'account_pending', message: 'Your account is waiting for an operator.' });
  t.equal((await app.inject({ method: 'GET', url: '/api/me', headers: bearer(token) })).statusCode, 403, 'nothing of the app works');
  const found = await app.inject({ method: 'GET', url: '/api/search-profiles?username=newb', headers: bearer(operator) });
  t.same(found.json(), [], 'not found in search while waiting');

  const requests = await app.inject({ method: 'GET', url: '/api/admin/join-requests', headers: bearer(operator) });
  t.match(requests.json(), { requests: [{ username: 'newbie', reason: 'Ale from the climbing gym' }] });
  const overview = (await app.inject({ method: 'GET', url: '/api/admin/overview', headers: bearer(operator) })).json();
  t.equal(overview.figures.suspendedUsers, 0, 'a waiting account is not counted as suspended');
  t.equal((await app.inject({ method: 'POST', url: '/api/admin/join-requests/newbie/approve', headers: bearer(token) })).statusCode, 403, 'not by themselves');
  t.equal((await app.inject({ method: 'POST', url: '/api/admin/join-requests/newbie/approve', headers: bearer(operator) })).statusCode, 200);
  t.equal((await app.inject({ method: 'GET', url: '/api/user-posts', headers: bearer(token) })).statusCode, 200, 'in after approval');
  const logged = (await app.inject({ method: 'GET', url: '/api/admin/overview', headers: bearer(operator) })).json().actions[0];
  t.match(logged, { operator: 'keeper', action: 'approve_join', target: 'newbie' }, 'the approval is in the moderation log, with who gave it');
  const again = await app.inject({ method: 'POST', url: '/api/admin/join-requests/newbie/approve', headers: bearer(operator) });
  t.equal(again.statusCode, 404);

  const kc = await keycloakApp(t, { REGISTRATION_MODE: 'approval' });
  const op = await kc.token('kc-op', 'boss', true);
  const first = await kc.app.inject({
    method: 'GET',
    url: '/api/user-posts',
    headers: { ...bearer(await kc.token('kc-5', 'spammer')), 'x-join-reason': encodeURIComponent('Prost! 🍺 from Köln') },
  });
  t.equal(first.statusCode, 403);
  t.match(first.json(), { error: 'account_pending' });
  t.match((await kc.app.inject({ method: 'GET', url: '/api/admin/join-requests', headers: bearer(op) })).json(), {
    requests: [{ username: 'spammer', reason: 'Prost! 🍺 from Köln' }],
  });
  t.equal((await kc.app.inject({ method: 'POST', url: '/api/admin/join-requests/spammer/reject', headers: bearer(op) })).statusCode, 200);
  t.match((await kc.app.inject({ method: 'GET', url: '/api/admin/overview', headers: bearer(op) })).json().actions[0], { operator: 'boss', action: 'reject_join', target: 'spammer' }, 'and so is a rejection');
  const rejected = await kc.app.inject({ method: 'GET', url: '/api/user-posts', headers: bearer(await kc.token('kc-5', 'spammer')) });
  t.equal(rejected.statusCode, 403);
  t.match(rejected.json(), { error: 'account_rejected' });
  // An invite lets a person in at once, as on Mastodon.
  const { code } = await makeInvite(kc.app, op, 1);
  const invited = await kc.app.inject({ method: 'GET', url: '/api/user-posts', headers: { ...bearer(await kc.token('kc-6', 'buddy')), 'x-invite-code': code } });
  t.equal(invited.statusCode, 200);
});

t.test('members can invite only when the operator allows it, and manage only their own links', async (t) => {
  const kc = await keycloakApp(t);
  const op = await kc.token('kc-op', 'boss', true);
  const member = await kc.token('kc-m', 'member');
  const other = await kc.token('kc-o', 'other');
  const refused = await kc.app.inject({ method: 'POST', url: '/api/invites', headers: bearer(member), payload: { expiresInHours: 24, maxUses: 1 } });
  t.equal(refused.statusCode, 403);
  const opInvite = await makeInvite(kc.app, op);
  t.equal((await kc.app.inject({ method: 'PUT', url: '/api/admin/instance', headers: bearer(op), payload: { membersCanInvite: true } })).statusCode, 200);
  const mine = await makeInvite(kc.app, member, 3);
  const listed = (await kc.app.inject({ method: 'GET', url: '/api/invites', headers: bearer(member) })).json();
  t.same(listed.invites.map((i: { id: number }) => i.id), [mine.invite.id], 'a member sees their own links only');
  t.equal((await kc.app.inject({ method: 'DELETE', url: `/api/invites/${opInvite.invite.id}`, headers: bearer(other) })).statusCode, 404);
  t.equal((await kc.app.inject({ method: 'DELETE', url: `/api/invites/${mine.invite.id}`, headers: bearer(member) })).statusCode, 200);
  t.equal((await kc.app.inject({ method: 'GET', url: '/api/invites', headers: bearer(op) })).json().invites.length, 2, 'operators see every link');
});
