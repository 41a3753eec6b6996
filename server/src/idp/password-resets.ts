import { createHash, randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { AccountsService } from './accounts-service.js';
import type { MailMessage } from './mailer.js';
import { passwordProblem } from './accounts-service.js';
import { createModerationLog, type Operator } from '../kernel/moderation-log.js';

/** A reset link works this long (issue 37: 24 hours). */
export const RESET_TTL_MS = 24 * 3600_000;
/** An e-mailed link is sent at most this often per account, whatever is typed into "Forgot password?". */
export const RESET_MAIL_INTERVAL_MS = 5 * 60_000;

export const RESET_MESSAGES = {
  unknown: 'This reset link is not valid. Check that you copied all of it, or ask for a new one.',
  used: 'This reset link was already used, so it cannot change the password again. Ask for a new one if you need it.',
  expired: 'This reset link has expired (links work for 24 hours). Ask for a new one.',
} as const;

export type ResetLinkProblem = keyof typeof RESET_MESSAGES;

/** 32 random bytes (256 bits), base64url: the secret part of a reset link. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const hashOf = (token: string) => createHash('sha256').update(token).digest('base64url');

export interface PasswordResetsOptions {
  now?: () => number;
}

/**
 * One-time password-reset links of the embedded provider. The link carries a
 * 256-bit secret; only its SHA-256 is stored (password_resets), so a copy of the
 * database cannot be turned into working links. A new link for an account
 * replaces its unused ones; a used one is kept (until the next link) so that a
 * second use can say so. Redeeming marks the link used and writes the new
 * password in one transaction: two tabs submitting the same link change it once.
 */
export function createPasswordResets(sqlite: Database.Database, accounts: AccountsService, options: PasswordResetsOptions = {}) {
  const now = options.now ?? Date.now;
  const find = sqlite.prepare<[string], { accountId: string; expiresAt: number; usedAt: number | null }>(
    'SELECT account_id AS accountId, expires_at AS expiresAt, used_at AS usedAt FROM password_resets WHERE token_hash = ?',
  );
  const removeForAccount = sqlite.prepare<[string]>('DELETE FROM password_resets WHERE account_id = ?');
  const insert = sqlite.prepare<[string, string, number, number, string | null]>(
    'INSERT INTO password_resets (token_hash, account_id, created_at, expires_at, created_by) VALUES (?, ?, ?, ?, ?)',
  );
  const markUsed = sqlite.prepare<[number, string]>('UPDATE password_resets SET used_at = ? WHERE token_hash = ? AND used_at IS NULL');
  const lastMailed = sqlite.prepare<[string], number>(
    'SELECT max(created_at) FROM password_resets WHERE account_id = ? AND created_by IS NULL AND used_at IS NULL',
  ).pluck();
  const setHash = sqlite.prepare<[string, string]>('UPDATE idp_accounts SET password_hash = ? WHERE id = ?');

  const log = createModerationLog(sqlite);
  const create = sqlite.transaction((accountId: string, by: { op: Operator; username: string } | null, at: number) => {
    const token = randomBytes(32).toString('base64url');
    removeForAccount.run(accountId);
    insert.run(hashOf(token), accountId, at, at + RESET_TTL_MS, by?.op.username ?? null);
    // An operator's link is an operator act (issue 48): logged with whose account it is for, never the link or its token.
    if (by) log(by.op, 'make_reset_link', by.username, null, '');
    return { token, expiresAt: at + RESET_TTL_MS };
  });

  function check(token: string, at = now()): { ok: true; accountId: string } | { ok: false; problem: ResetLinkProblem } {
    if (!TOKEN.test(token)) return { ok: false, problem: 'unknown' };
    const row = find.get(hashOf(token));
    if (!row || !accounts.findForPassword(row.accountId)) return { ok: false, problem: 'unknown' };
    if (row.usedAt !== null) return { ok: false, problem: 'used' };
    if (row.expiresAt <= at) return { ok: false, problem: 'expired' };
    return { ok: true, accountId: row.accountId };
  }

  const redeem = sqlite.transaction((token: string, hash: string, at: number): { ok: true; accountId: string } | { ok: false; problem: ResetLinkProblem } => {
    const valid = check(token, at);
    if (!valid.ok) return valid;
    markUsed.run(at, hashOf(token));
    setHash.run(hash, valid.accountId);
    return valid;
  });

  return {
    /**
     * A new link for this account, made by an operator for the account named `username` (logged),
     * or null: e-mailed from "Forgot password?". The account's older links stop working.
     */
    create: (accountId: string, by: { op: Operator; username: string } | null) => create.immediate(accountId, by, now()),
    /** True when this account was e-mailed a link that is still unused within RESET_MAIL_INTERVAL_MS. */
    mailedRecently: (accountId: string) => (lastMailed.get(accountId) ?? 0) > now() - RESET_MAIL_INTERVAL_MS,
    /** Whether the link can still be used, and for which account. */
    check: (token: string) => check(token),
    /**
     * Sets the account's new password through the link: the sign-up rules apply
     * (an error message, nothing changed), then the link is used up.
     */
    async redeem(token: string, password: string): Promise<
      { ok: true; accountId: string } | { ok: false; problem: ResetLinkProblem } | { ok: false; problem: 'password'; message: string }
    > {
      const valid = check(token);
      if (!valid.ok) return valid;
      const account = accounts.findForPassword(valid.accountId)!;
      const weak = passwordProblem(password, account);
      if (weak) return { ok: false, problem: 'password', message: weak };
      const hash = await accounts.hashFor(password);
      return redeem.immediate(token, hash, now());
    },
  };
}

export type PasswordResets = ReturnType<typeof createPasswordResets>;

/** The address a reset link opens (idp/page-routes.ts, GET /oauth2/reset). */
export const resetLinkUrl = (publicUrl: string, token: string) => `${publicUrl}/oauth2/reset?token=${token}`;

/** The e-mail that carries a reset link: plain text, nothing from anyone but the account's own name. */
export function resetMail(account: { username: string; email: string }, url: string, publicUrl: string, byOperator: boolean): MailMessage {
  const why = byOperator
    ? `An operator of the Shower Beer server at ${publicUrl} made a link for you to choose a new password.`
    : `Someone (hopefully you) asked to reset the password of your Shower Beer account at ${publicUrl}.`;
  return {
    to: account.email,
    subject: 'Reset your Shower Beer password',
    text: `Hi ${account.username},

${why} To choose a new password, open this link within 24 hours:

${url}

The link works once. Every device signed in with the old password is signed out when you choose the new one.
If you did not ask for this, ignore this email: your password stays as it is.
`,
  };
}
