import { HttpError } from '../kernel/errors.js';
import type { InstanceRepository } from './instance-repository.js';
import type { InvitesRepository } from './invites-repository.js';
import { cleanText } from '../kernel/text.js';

export const JOIN_REASON_MAX_LENGTH = 500;

/** What a person brings to their first sign-in (docs/registration.md). */
export interface JoinRequest {
  /** An invite code, from an invite link. */
  invite?: string | null;
  /** Why they want to join (approval mode). */
  reason?: string | null;
  /**
   * Lets the account in whatever the mode: the embedded provider's first account (it
   * becomes the operator) and, with an outside provider, a token holding the operator role.
   * Without it, a new server in approval mode would have nobody to approve anyone.
   */
  bypass?: boolean;
}

/** How the new users row starts (people/users-repository.ts writes it). */
export interface Admission {
  joinState: 'pending' | null;
  joinReason: string | null;
  inviteId: number | null;
}

export const registrationClosed = () => new HttpError(403, 'registration_closed', 'This server is not taking new accounts.');
export const inviteRequired = () =>
  new HttpError(403, 'invite_required', 'Joining this server needs an invite link. Ask someone who is on it for one.');
export const accountPending = () => new HttpError(403, 'account_pending', 'Your account is waiting for an operator.');
export const accountRejected = () =>
  new HttpError(403, 'account_rejected', 'An operator of this server declined your request to join.');

/** The reason as stored: cleaned, cut to JOIN_REASON_MAX_LENGTH. */
export const cleanReason = (raw: string | null | undefined) => {
  const text = cleanText(raw ?? '');
  return text === '' ? null : Array.from(text).slice(0, JOIN_REASON_MAX_LENGTH).join('');
};

/**
 * Who may join, decided when the app first makes a person's users row (their first sign-in,
 * with any provider). `admit` runs inside that row's IMMEDIATE transaction, so the invite's use
 * is counted with the account it made, and a refusal (thrown) writes nothing at all.
 *  - open: everyone;
 *  - approval: the account waits for an operator (join_state 'pending'), unless it brings a
 *    valid invite, which lets it in at once, as on Mastodon;
 *  - invite: only with a valid invite;
 *  - closed: nobody (npm run user:add makes the row itself, outside this rule).
 */
export function createRegistrationService(instance: InstanceRepository, invites: InvitesRepository) {
  return {
    rejectedMessage: accountRejected().message,
    admit(request: JoinRequest): Admission {
      const free: Admission = { joinState: null, joinReason: null, inviteId: null };
      if (request.bypass) return free;
      const mode = instance.get().registrationMode;
      const code = request.invite?.trim() || null;
      switch (mode) {
        case 'open':
          return free;
        case 'closed':
          throw registrationClosed();
        case 'invite':
          if (code === null) throw inviteRequired();
          return { ...free, inviteId: invites.redeem(code) };
        case 'approval':
          if (code !== null) return { ...free, inviteId: invites.redeem(code) };
          return { joinState: 'pending', joinReason: cleanReason(request.reason), inviteId: null };
      }
    },
  };
}

export type RegistrationService = ReturnType<typeof createRegistrationService>;
