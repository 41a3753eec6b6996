import { createHash, randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import { HttpError, notFound } from '../kernel/errors.js';
import { createModerationLog, type Operator } from '../kernel/moderation-log.js';

/** 18 random bytes (144 bits, above the 128 the issue asks for), as 24 base64url characters. */
const CODE_BYTES = 18;
export const INVITE_MAX_USES = 1000;
/** Longest an invite may stay valid: 90 days. */
export const INVITE_MAX_HOURS = 90 * 24;

const hashOf = (code: string) => createHash('sha256').update(code, 'utf8').digest('hex');
/** Only strings shaped like a code are looked up (a header or form field can carry anything). */
const CODE_SHAPE = /^[A-Za-z0-9_-]{16,64}$/;

/** Why an invite was withdrawn (migration 0026); the operator page says it. */
export type WithdrawnReason = 'by_hand' | 'maker_suspended' | 'maker_removed' | 'members_off';

export interface InviteRow {
  id: number;
  createdBy: string;
  createdAt: number;
  expiresAt: number;
  maxUses: number;
  uses: number;
  revokedAt: number | null;
  revokedReason: WithdrawnReason | null;
  /** 1 while its maker may still let people in: a live account, neither suspended nor waiting nor turned down. */
  makerActive: number;
}

/** The one message for a withdrawn link, whoever withdrew it and why: a stranger holding the link learns nothing of its maker. */
const WITHDRAWN = 'This invite link was withdrawn. Ask the person who sent it for a new one.';

/** Why an invite cannot be used: a 403 whose code the web app and the sign-up page explain. */
export const inviteInvalid = (message: string) => new HttpError(403, 'invite_invalid', message);

/**
 * Invite links (table invites). The code is made from the operating system's CSPRNG and
 * only its SHA-256 is stored, so the database alone cannot be turned into working links.
 * `redeem` runs inside the transaction that makes the account (people/users-repository.ts):
 * its UPDATE counts the use only while uses < max_uses, so parallel first sign-ins on a
 * one-use invite make one account and the others are refused with nothing written.
 */
export function createInvitesRepository(sqlite: Database.Database, now: () => number = Date.now) {
  const insert = sqlite.prepare<[string, number, number, number, number, number], { id: number }>(
    'INSERT INTO invites (code_hash, created_by, created_at, expires_at, max_uses, by_operator) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
  );
  // Pending and turned-down accounts are held with suspended_at too (registration-service.ts).
  const makerActive = 'u.deleted_at IS NULL AND u.suspended_at IS NULL AND u.join_state IS NULL';
  const columns = `i.id, u.username AS createdBy, i.created_at AS createdAt, i.expires_at AS expiresAt,
    i.max_uses AS maxUses, i.uses, i.revoked_at AS revokedAt, i.revoked_reason AS revokedReason,
    (${makerActive}) AS makerActive`;
  const byHash = sqlite.prepare<[string], InviteRow>(`SELECT ${columns} FROM invites i JOIN users u ON u.id = i.created_by WHERE i.code_hash = ?`);
  const byId = sqlite.prepare<[number], InviteRow & { createdById: number }>(
    `SELECT ${columns}, i.created_by AS createdById FROM invites i JOIN users u ON u.id = i.created_by WHERE i.id = ?`,
  );
  const all = sqlite.prepare<[], InviteRow>(`SELECT ${columns} FROM invites i JOIN users u ON u.id = i.created_by ORDER BY i.id DESC LIMIT 200`);
  const mine = sqlite.prepare<[number], InviteRow>(
    `SELECT ${columns} FROM invites i JOIN users u ON u.id = i.created_by WHERE i.created_by = ? ORDER BY i.id DESC LIMIT 200`,
  );
  // The maker's state is read again by the write itself, inside the account's transaction.
  const use = sqlite.prepare<[number, number]>(
    `UPDATE invites SET uses = uses + 1 WHERE id = ? AND uses < max_uses AND revoked_at IS NULL AND expires_at > ?
       AND EXISTS (SELECT 1 FROM users u WHERE u.id = invites.created_by AND ${makerActive})`,
  );
  const revoke = sqlite.prepare<[number, number]>(`UPDATE invites SET revoked_at = ?, revoked_reason = 'by_hand' WHERE id = ? AND revoked_at IS NULL`);
  const revokeAllBy = sqlite.prepare<{ user: number; at: number; reason: WithdrawnReason }>(
    'UPDATE invites SET revoked_at = @at, revoked_reason = @reason WHERE created_by = @user AND revoked_at IS NULL',
  );
  const revokeMembers = sqlite.prepare<{ at: number }>(
    `UPDATE invites SET revoked_at = @at, revoked_reason = 'members_off' WHERE by_operator = 0 AND revoked_at IS NULL AND expires_at > @at AND uses < max_uses`,
  );

  /** The invite this code opens, or why it does not. */
  function check(code: string): InviteRow {
    const row = CODE_SHAPE.test(code) ? byHash.get(hashOf(code)) : undefined;
    if (!row) throw inviteInvalid('This invite link is not valid. Ask the person who sent it for a new one.');
    // A maker who can no longer act (suspended, waiting, removed) takes their links with them, as on
    // Mastodon; said as "withdrawn", so the link tells nobody what became of the person who made it.
    if (row.revokedAt !== null || !row.makerActive) throw inviteInvalid(WITHDRAWN);
    if (row.expiresAt <= now()) throw inviteInvalid('This invite link has expired. Ask the person who sent it for a new one.');
    if (row.uses >= row.maxUses) throw inviteInvalid('This invite link has been used up. Ask the person who sent it for a new one.');
    return row;
  }

  // An operator's link made or withdrawn is an operator act, in the moderation log (issue 48) in
  // the same transaction; a member's is not. The log names the link by its number, never its code.
  const log = createModerationLog(sqlite);
  const create = sqlite.transaction((maker: Operator, hours: number, maxUses: number, byOperator: boolean) => {
    const code = randomBytes(CODE_BYTES).toString('base64url');
    const at = now();
    const { id } = insert.get(hashOf(code), maker.id, at, at + hours * 3_600_000, maxUses, byOperator ? 1 : 0)!;
    const lasting = hours % 24 === 0 ? `${hours / 24} ${hours === 24 ? 'day' : 'days'}` : `${hours} ${hours === 1 ? 'hour' : 'hours'}`;
    if (byOperator) log(maker, 'make_invite', `invite link ${id} (${maxUses} ${maxUses === 1 ? 'use' : 'uses'}, ${lasting})`, null, '');
    return { id, code };
  });
  const withdraw = sqlite.transaction((id: number, by: Operator, asOperator: boolean) => {
    const row = byId.get(id);
    if (!row || (!asOperator && row.createdById !== by.id)) throw notFound('No such invite.');
    revoke.run(now(), id);
    if (asOperator) log(by, 'withdraw_invite', `invite link ${id} by ${row.createdBy}`, null, '');
  });

  return {
    /** A new invite by `maker` (an operator's when `byOperator`: logged); the code is in the answer only (it is not stored). */
    create: (maker: Operator, hours: number, maxUses: number, byOperator: boolean): { id: number; code: string } =>
      create.immediate(maker, hours, maxUses, byOperator),
    /** Throws invite_invalid unless the code can be used now (the sign-up page asks before making an account). */
    check,
    /** Counts one use; call inside the transaction that makes the account. Throws invite_invalid if none is left. */
    redeem(code: string): number {
      const row = check(code);
      if (use.run(row.id, now()).changes !== 1) {
        throw inviteInvalid('This invite link has been used up. Ask the person who sent it for a new one.');
      }
      return row.id;
    },
    get: (id: number): InviteRow | undefined => byId.get(id),
    list: (): InviteRow[] => all.all(),
    listBy: (userId: number): InviteRow[] => mine.all(userId),
    /** Withdraws an invite; a member may withdraw their own only (`asOperator` false); an operator's withdrawal is logged. */
    revoke: (id: number, by: Operator, asOperator: boolean): void => withdraw.immediate(id, by, asOperator),
    /**
     * Withdraws every open invite of a person who can no longer act; inside the suspending or
     * removing transaction (people/suspension.ts, account-removal-repository.ts). Lifting a
     * suspension gives nothing back: the operator or the person makes new links.
     */
    revokeAllBy(userId: number, reason: 'maker_suspended' | 'maker_removed', at: number = now()): number {
      return revokeAllBy.run({ user: userId, at, reason }).changes;
    },
    /** Withdraws the open invites members made (not operators): "Members can invite" turned off (instance-repository.ts). */
    revokeMembers(at: number = now()): number {
      return revokeMembers.run({ at }).changes;
    },
  };
}

export type InvitesRepository = ReturnType<typeof createInvitesRepository>;
