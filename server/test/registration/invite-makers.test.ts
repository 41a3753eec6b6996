import t from 'tap';
import type { FastifyInstance } from 'fastify';
import { bearer, buildTestApp } from '../helpers.js';
import { countUsers, keycloakApp, signUpWith, tokenOf } from './registration-helpers.js';

/**
 * Issue 45, parts 1 and 2 (docs/registration.md, "Invite links"): an invite ends with its maker's
 * rights. A suspended, removed or waiting maker's links are refused at the embedded sign-up page
 * and when the app makes the account (both providers), with nothing written; suspension and
 * removal withdraw them for good; turning "Members can invite" off withdraws members' open links.
 */

const makeInvite = async (app: FastifyInstance, token: string, maxUses = 5) => {
  const res = await app.inject({ method: 'POST', url: '/api/invites', headers: bearer(token), payload: { expiresInHours: 24, maxUses } });
  if (res.statusCode !== 200) throw new Error(res.body);
  return res.json() as { code: string; invite: { id: number } };
};
const put = async (app: FastifyInstance, token: string, payload: Record<string, unknown>) => {
  const res = await app.inject({ method: 'PUT', url: '/api/admin/instance', headers: bearer(token), payload });
  if (res.statusCode !== 200) throw new Error(res.body);
};
const idpAccounts = (app: FastifyInstance) => app.database.sqlite.prepare<[], number>('SELECT count(*) FROM idp_accounts').pluck().get()!;
type Listed = { id: number; state: string; usesLeft: number; withdrawnBecause: string | null };
const listed = async (app: FastifyInstance, token: string) =>
  new Map(((await app.inject({ method: 'GET', url: '/api/invites', headers: bearer(token) })).json().invites as Listed[]).map((i) => [i.id, i]));

t.test('embedded: a suspended, a removed and an operator\'s suspended links are refused at sign-up with nothing made; lifting gives nothing back', async (t) => {
  const { app, config } = await buildTestApp(t, { ADMIN_USERNAMES: 'deputy' });
  const keeper = tokenOf((await signUpWith(app, config, { username: 'keeper' })).headers.location);
  await put(app, keeper, { registrationMode: 'invite', membersCanInvite: true });
  const join = async (username: string, invite: string) => {
    const res = await signUpWith(app, config, { username }, {}, { invite });
    t.equal(res.statusCode, 303, res.body);
    return tokenOf(res.headers.location);
  };
  const spammer = await join('spammer', (await makeInvite(app, keeper)).code);
  const leaver = await join('leaver', (await makeInvite(app, keeper)).code);
  const deputy = await join('deputy', (await makeInvite(app, keeper)).code);
  const fromSpammer = await makeInvite(app, spammer);
  const fromLeaver = await makeInvite(app, leaver);
  const fromDeputy = await makeInvite(app, deputy);
  const control = await makeInvite(app, keeper);

  const suspend = (name: string) =>
    app.inject({ method: 'POST', url: `/api/admin/users/${name}/suspend`, headers: bearer(keeper), payload: { reason: 'Spam' } });
  t.equal((await suspend('spammer')).statusCode, 200);
  t.equal((await suspend('deputy')).statusCode, 200, 'an operator\'s links follow the same rule');
  t.equal((await app.inject({ method: 'DELETE', url: '/api/account', headers: bearer(leaver), payload: { confirmUsername: 'leaver' } })).statusCode, 200);

  const users = countUsers(app);
  const accounts = idpAccounts(app);
  for (const [who, invite] of [['spammer', fromSpammer], ['leaver', fromLeaver], ['deputy', fromDeputy]] as const) {
    const res = await signUpWith(app, config, { username: `via${who}` }, {}, { invite: invite.code });
    t.equal(res.statusCode, 403, `${who}'s link is refused at the sign-up page`);
    t.match(res.body, /This invite link was withdrawn/);
    t.notMatch(res.body, /suspend|remov/i, 'the stranger is not told what became of the maker');
  }
  t.equal(countUsers(app), users, 'no app account made');
  t.equal(idpAccounts(app), accounts, 'no sign-in account made');

  const list = await listed(app, keeper);
  t.match(list.get(fromSpammer.invite.id), { state: 'revoked', usesLeft: 0, withdrawnBecause: 'maker_suspended' });
  t.match(list.get(fromDeputy.invite.id), { state: 'revoked', withdrawnBecause: 'maker_suspended' });
  t.match(list.get(fromLeaver.invite.id), { state: 'revoked', withdrawnBecause: 'maker_removed' });
  t.match(list.get(control.invite.id), { state: 'active', withdrawnBecause: null });

  // Lifting the suspension brings nothing back: the links stay withdrawn and refused.
  t.equal((await app.inject({ method: 'DELETE', url: '/api/admin/users/spammer/suspend', headers: bearer(keeper), payload: {} })).statusCode, 200);
  t.match((await listed(app, keeper)).get(fromSpammer.invite.id), { state: 'revoked', withdrawnBecause: 'maker_suspended' });
  const after = await signUpWith(app, config, { username: 'afterlift' }, {}, { invite: fromSpammer.code });
  t.equal(after.statusCode, 403);
  t.equal(countUsers(app), users);
  t.equal((await signUpWith(app, config, { username: 'welcome' }, {}, { invite: control.code })).statusCode, 303, 'a live maker\'s link still works');
});

t.test('the maker\'s state is read at account creation too, even for a link nothing withdrew', async (t) => {
  const { app, config } = await buildTestApp(t);
  const keeper = tokenOf((await signUpWith(app, config, { username: 'keeper' })).headers.location);
  await put(app, keeper, { registrationMode: 'invite', membersCanInvite: true });
  const member = tokenOf((await signUpWith(app, config, { username: 'member' }, {}, { invite: (await makeInvite(app, keeper)).code })).headers.location);
  const invite = await makeInvite(app, member);
  t.equal((await app.inject({ method: 'POST', url: '/api/admin/users/member/suspend', headers: bearer(keeper), payload: { reason: 'Spam' } })).statusCode, 200);
  // As a link of a maker suspended before migration 0026, or a race: withdrawal undone by hand.
  app.database.sqlite.prepare('UPDATE invites SET revoked_at = NULL, revoked_reason = NULL WHERE id = ?').run(invite.invite.id);
  t.match((await listed(app, keeper)).get(invite.invite.id), { state: 'revoked', withdrawnBecause: 'maker_inactive' }, 'shown withdrawn anyway');

  const users = countUsers(app);
  const page = await signUpWith(app, config, { username: 'stranger' }, {}, { invite: invite.code });
  t.equal(page.statusCode, 403, 'the sign-up page refuses it');
  // Account creation itself (the last step of a sign-up, and the oidc first sign-in) refuses it too.
  t.throws(() => app.users.upsertFromClaims('sub-stranger', 'stranger', null, undefined, () => app.registration.admit({ invite: invite.code })), {
    code: 'invite_invalid',
    message: /was withdrawn/,
  });
  t.equal(countUsers(app), users, 'nothing made');
  t.equal(app.database.sqlite.prepare<[number], number>('SELECT uses FROM invites WHERE id = ?').pluck().get(invite.invite.id), 0, 'no use counted');

  // A maker left waiting (approval mode) cannot let anyone in either.
  app.database.sqlite.prepare(`UPDATE users SET suspended_at = NULL, join_state = 'pending' WHERE username = 'member'`).run();
  t.throws(() => app.users.upsertFromClaims('sub-other', 'other', null, undefined, () => app.registration.admit({ invite: invite.code })), { code: 'invite_invalid' });
  t.equal(countUsers(app), users);
});

t.test('oidc: a suspended or removed member\'s link is refused at the first sign-in, nothing made', async (t) => {
  const kc = await keycloakApp(t, { REGISTRATION_MODE: 'invite' });
  const op = await kc.token('kc-op', 'boss', true);
  await put(kc.app, op, { membersCanInvite: true });
  const first = async (sub: string, name: string, code?: string) =>
    kc.app.inject({ method: 'GET', url: '/api/me', headers: { ...bearer(await kc.token(sub, name)), ...(code ? { 'x-invite-code': code } : {}) } });
  t.equal((await first('kc-s', 'spammer', (await makeInvite(kc.app, op)).code)).statusCode, 200);
  t.equal((await first('kc-l', 'leaver', (await makeInvite(kc.app, op)).code)).statusCode, 200);
  const fromSpammer = await makeInvite(kc.app, await kc.token('kc-s', 'spammer'));
  const fromLeaver = await makeInvite(kc.app, await kc.token('kc-l', 'leaver'));
  t.equal((await kc.app.inject({ method: 'POST', url: '/api/admin/users/spammer/suspend', headers: bearer(op), payload: { reason: 'Spam' } })).statusCode, 200);
  const leaver = await kc.token('kc-l', 'leaver');
  t.equal((await kc.app.inject({ method: 'DELETE', url: '/api/account', headers: bearer(leaver), payload: { confirmUsername: 'leaver' } })).statusCode, 200);

  const users = countUsers(kc.app);
  for (const invite of [fromSpammer, fromLeaver]) {
    const res = await first(`kc-new-${invite.invite.id}`, `new${invite.invite.id}`, invite.code);
    t.equal(res.statusCode, 403);
    t.same(res.json(), { error: 'invite_invalid', message: 'This invite link was withdrawn. Ask the person who sent it for a new one.' });
  }
  t.equal(countUsers(kc.app), users, 'no account made');
  t.equal(kc.app.database.sqlite.prepare<[number, number], number>('SELECT sum(uses) FROM invites WHERE id IN (?, ?)').pluck().get(fromSpammer.invite.id, fromLeaver.invite.id), 0);
});

t.test('"Members can invite" off withdraws members\' open links for good; operators\' stay', async (t) => {
  const kc = await keycloakApp(t, { REGISTRATION_MODE: 'invite' });
  const op = await kc.token('kc-op', 'boss', true);
  await put(kc.app, op, { membersCanInvite: true });
  t.equal((await kc.app.inject({ method: 'GET', url: '/api/me', headers: { ...bearer(await kc.token('kc-m', 'member')), 'x-invite-code': (await makeInvite(kc.app, op)).code } })).statusCode, 200);
  const member = await kc.token('kc-m', 'member');
  const fromMember = await makeInvite(kc.app, member);
  const fromOperator = await makeInvite(kc.app, op);

  // Saving other settings with the switch still on changes nothing.
  await put(kc.app, op, { name: 'Still on', membersCanInvite: true });
  t.match((await listed(kc.app, op)).get(fromMember.invite.id), { state: 'active' });

  await put(kc.app, op, { membersCanInvite: false });
  const list = await listed(kc.app, op);
  t.match(list.get(fromMember.invite.id), { state: 'revoked', withdrawnBecause: 'members_off' });
  t.match(list.get(fromOperator.invite.id), { state: 'active', withdrawnBecause: null });
  const users = countUsers(kc.app);
  const refused = await kc.app.inject({ method: 'GET', url: '/api/me', headers: { ...bearer(await kc.token('kc-x', 'late')), 'x-invite-code': fromMember.code } });
  t.equal(refused.statusCode, 403);
  t.match(refused.json(), { error: 'invite_invalid', message: /was withdrawn/ });
  t.equal(countUsers(kc.app), users);

  // On again: the member's old link stays withdrawn; a new one works.
  await put(kc.app, op, { membersCanInvite: true });
  t.match((await listed(kc.app, op)).get(fromMember.invite.id), { state: 'revoked', withdrawnBecause: 'members_off' });
  const again = await kc.app.inject({ method: 'GET', url: '/api/me', headers: { ...bearer(await kc.token('kc-y', 'later')), 'x-invite-code': fromMember.code } });
  t.equal(again.statusCode, 403);
  const fresh = await makeInvite(kc.app, member);
  t.equal((await kc.app.inject({ method: 'GET', url: '/api/me', headers: { ...bearer(await kc.token('kc-z', 'newest')), 'x-invite-code': fresh.code } })).statusCode, 200);
  t.equal((await kc.app.inject({ method: 'GET', url: '/api/me', headers: { ...bearer(await kc.token('kc-w', 'welcome')), 'x-invite-code': fromOperator.code } })).statusCode, 200, 'the operator\'s link kept working');
});
