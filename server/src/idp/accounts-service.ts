import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { IdpAccount } from '../kernel/db/schema.js';
import { createAccountsRepository, type AccountsRepository } from './accounts-repository.js';
import { createLoginThrottle, type LoginThrottle, type LoginThrottleOptions } from './login-throttle.js';
import { hasHiddenCharacters } from '../kernel/text.js';
import { weakPasswordReason } from './password-strength.js';
import { DEFAULT_PARAMS, dummyHash, hashPassword, verifyPassword, type ScryptParams } from './passwords.js';

/** What the rest of the server may know about an account (never the hash). */
export interface Account {
  id: string;
  username: string;
  email: string;
  /** The first account made on this server: an operator (README, "Operators"). */
  isFirst: boolean;
}

export interface SignUpInput {
  username: string;
  email: string;
  password: string;
}

export type SignUpField = keyof SignUpInput;
export type FieldErrors = Partial<Record<SignUpField, string>>;

export type SignUpResult = { ok: true; account: Account } | { ok: false; errors: FieldErrors };
export type ChangePasswordResult =
  | { ok: true }
  | { ok: false; reason: 'current' | 'new'; message: string }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number }
  | { ok: false; reason: 'missing' };

export type SignInResult =
  | { ok: true; account: Account }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

export const MESSAGES = {
  username: 'Choose a username of 3 to 30 characters: letters, digits, _ . and - only.',
  usernameTaken: 'That username is already taken. Please choose another.',
  usernameHidden: 'Usernames cannot contain invisible or text-direction characters. Please type it again.',
  usernameLookalike: 'That username looks the same as one already taken (letters like I and l, or O and 0, look alike). Please choose another.',
  email: 'Enter a valid email address, like name@example.com.',
  emailTaken: 'An account with this email already exists. Sign in instead.',
  passwordShort: 'Use a password of at least 8 characters.',
  passwordLong: 'Use a password of at most 256 characters.',
  currentPasswordWrong: 'That is not your current password. Nothing was changed.',
  passwordUnchanged: 'Your new password is the same as the current one. Please choose a different one.',
  wrongCredentials: 'Wrong username/email or password.',
  suspended: 'An operator has suspended this account, so it cannot sign in.',
} as const;

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;
const USERNAME = /^[A-Za-z0-9_.-]{3,30}$/;
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** Format checks only (no database): the same rules for the sign-up page and user:add. */
export function validateSignUp(input: SignUpInput): FieldErrors {
  const errors: FieldErrors = {};
  if (hasHiddenCharacters(input.username)) errors.username = MESSAGES.usernameHidden;
  else if (!USERNAME.test(input.username)) errors.username = MESSAGES.username;
  if (input.email.length > 254 || !EMAIL.test(input.email)) errors.email = MESSAGES.email;
  const password = passwordProblem(input.password, input);
  if (password) errors.password = password;
  return errors;
}

/** Why a password is refused for this account (the sign-up rules), or null: used by sign-up, change and reset alike. */
export function passwordProblem(password: string, account: { username: string; email: string }): string | null {
  if (password.length < PASSWORD_MIN) return MESSAGES.passwordShort;
  if (password.length > PASSWORD_MAX) return MESSAGES.passwordLong;
  return weakPasswordReason(password, [account.username, account.email, account.email.split('@')[0] ?? '', 'shower', 'beer']);
}

const publicAccount = (a: Omit<IdpAccount, 'usernameSkeleton'>): Account => ({
  id: a.id,
  username: a.username,
  email: a.email,
  isFirst: Boolean(a.isFirst),
});

const isUniqueViolation = (err: unknown) =>
  typeof err === 'object' && err !== null && (err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';

export interface AccountsServiceOptions {
  repository?: AccountsRepository;
  throttle?: LoginThrottle;
  /** Limits for the default throttle (config.login). */
  throttleOptions?: LoginThrottleOptions;
  hashParams?: ScryptParams;
  now?: () => number;
}

/**
 * Accounts of the embedded identity provider: sign-up, sign-in and lookup.
 * Used by the /oauth2 pages and by scripts/user-add.ts alike.
 */
export function createAccountsService(sqlite: Database.Database, options: AccountsServiceOptions = {}) {
  const repo = options.repository ?? createAccountsRepository(sqlite);
  const throttle = options.throttle ?? createLoginThrottle(sqlite, options.throttleOptions);
  const hashParams = options.hashParams ?? DEFAULT_PARAMS;
  const now = options.now ?? Date.now;

  /** Which of username / e-mail someone else already has. */
  function takenErrors(username: string, email: string): FieldErrors {
    const errors: FieldErrors = {};
    if (repo.findByUsername(username)) errors.username = MESSAGES.usernameTaken;
    else if (repo.findLookalike(username)) errors.username = MESSAGES.usernameLookalike;
    if (repo.findByEmail(email)) errors.email = MESSAGES.emailTaken;
    return errors;
  }

  return {
    async signUp(raw: SignUpInput): Promise<SignUpResult> {
      const input = { username: raw.username.trim().normalize('NFC'), email: raw.email.trim().normalize('NFC'), password: raw.password };
      const errors = { ...takenErrors(input.username, input.email), ...validateSignUp(input) };
      if (Object.keys(errors).length > 0) return { ok: false, errors };
      const account: Omit<IdpAccount, 'usernameSkeleton' | 'isFirst'> = {
        id: randomUUID(),
        username: input.username,
        email: input.email,
        passwordHash: await hashPassword(input.password, hashParams),
        createdAt: now(),
      };
      try {
        // Checked again inside the write: someone may have taken the name while we hashed.
        const taken = repo.transaction(() => {
          const late = takenErrors(account.username, account.email);
          if (Object.keys(late).length === 0) repo.insert(account);
          return late;
        });
        if (Object.keys(taken).length > 0) return { ok: false, errors: taken };
      } catch (err) {
        if (isUniqueViolation(err)) return { ok: false, errors: takenErrors(account.username, account.email) };
        throw err;
      }
      // Read back: whether it is the server's first account is decided inside the insert.
      return { ok: true, account: publicAccount(repo.findById(account.id) ?? { ...account, isFirst: false }) };
    },

    /**
     * Checks a username or e-mail and password from a client address. The same
     * work and the same answer whether or not the account exists. The attempt
     * is counted before the password is hashed (login-throttle.ts), so parallel
     * guesses cannot get past the limit.
     */
    async signIn(identifier: string, password: string, address = ''): Promise<SignInResult> {
      const login = identifier.trim();
      const reserved = throttle.reserve(login, address);
      if (!reserved.ok) return { ok: false, reason: 'throttled', retryAfterSeconds: reserved.retryAfterSeconds };
      const match = login.includes('@') ? repo.findByEmail(login) : repo.findByUsername(login);
      // A removed account answers as a name nobody has, the right password included.
      const found = match && !repo.isRemoved(match.id) ? match : undefined;
      const overlong = password.length > PASSWORD_MAX;
      const matches = await verifyPassword(overlong ? '' : password, match?.passwordHash ?? (await dummyHash()));
      if (!found || !matches || overlong) return { ok: false, reason: 'invalid' };
      throttle.succeeded(login, address);
      return { ok: true, account: publicAccount(found) };
    },
    /**
     * Changes the password of a signed-in account after checking the current one.
     * The check counts against the account's sign-in limits (login-throttle.ts, keyed
     * by its username), so a stolen session cannot guess the password faster than
     * the sign-in page allows. Nothing changes unless the result is ok.
     */
    async changePassword(id: string, current: string, next: string, address = ''): Promise<ChangePasswordResult> {
      const account = repo.findById(id);
      if (!account || repo.isRemoved(id)) return { ok: false, reason: 'missing' };
      const reserved = throttle.reserve(account.username, address);
      if (!reserved.ok) return { ok: false, reason: 'throttled', retryAfterSeconds: reserved.retryAfterSeconds };
      const matches = current.length <= PASSWORD_MAX && (await verifyPassword(current, account.passwordHash));
      if (!matches) return { ok: false, reason: 'current', message: MESSAGES.currentPasswordWrong };
      throttle.succeeded(account.username, address);
      const problem = passwordProblem(next, account);
      if (problem) return { ok: false, reason: 'new', message: problem };
      if (next === current) return { ok: false, reason: 'new', message: MESSAGES.passwordUnchanged };
      const hash = await hashPassword(next, hashParams);
      // Only if nobody changed it while we hashed: the check and the write in one transaction.
      const written = repo.transaction(() => repo.findById(id)?.passwordHash === account.passwordHash && repo.setPasswordHash(id, hash));
      return written ? { ok: true } : { ok: false, reason: 'current', message: MESSAGES.currentPasswordWrong };
    },
    /** Sets a new password without the current one (a reset link): the caller has checked the link. */
    hashFor: (password: string) => hashPassword(password, hashParams),
    /** The account as the password rules need it (username and e-mail), or undefined. */
    findForPassword(id: string): { id: string; username: string; email: string } | undefined {
      const row = repo.findById(id);
      return row && !repo.isRemoved(id) ? { id: row.id, username: row.username, email: row.email } : undefined;
    },
    /** The account a typed username or e-mail names (removed ones excluded). */
    findByIdentifier(identifier: string): Account | undefined {
      const login = identifier.trim();
      const row = login.includes('@') ? repo.findByEmail(login) : repo.findByUsername(login);
      return row && !repo.isRemoved(row.id) ? publicAccount(row) : undefined;
    },
    /** Counts a "Forgot password?" request like a sign-in attempt, in its own count (never the sign-in's). */
    reserveResetRequest: (identifier: string, address: string) => throttle.reserve(`\u0000reset\n${identifier.trim()}`, address),
    /** True when an account has this e-mail (any case). */
    isEmailTaken: (email: string) => repo.findByEmail(email.trim()) !== undefined,
    findById(id: string): Account | undefined {
      const row = repo.findById(id);
      return row ? publicAccount(row) : undefined;
    },

    delete: (id: string) => repo.delete(id),
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
