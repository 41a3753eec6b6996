import type Database from 'better-sqlite3';
import type { Counters } from '../kernel/counters.js';
import type { PersonSteps } from '../kernel/person-steps.js';

/**
 * What suspending an account does to the counters, and lifting it undoes: while
 * suspended, its likes, comments and follows count for nobody (posts.like_count,
 * comment_count, users.likes_received, comments_received, follower_count and
 * following_count of everyone, itself included), and its posts and comments are
 * hidden. The same steps run one way to suspend and back to lift (counters.ts:
 * suspending, suspensionLifted), over the rows that exist at that moment, so they stay exact across everything that
 * may happen meanwhile:
 * - a suspended account cannot write, so its likes, comments and follows change
 *   only by deletion of the post or account they hang on, whose counters go too;
 * - removing a hidden comment moves no counter (comments-repository.ts);
 * - a suspended account has no profile, so nobody can unfollow or block it;
 * - removing a suspended account lifts the suspension first, in its transaction
 *   (account-removal-repository.ts).
 * Suspending also withdraws the account's open invite links (invites-repository.ts); lifting
 * does not bring them back, so links a spammer handed out stay dead.
 *
 * Hiding the posts and comments is their capabilities' own step (`hide` of kernel/person-steps.ts,
 * listed in server/src/person-steps.ts). `withdrawInvites` is registration's
 * (invites-repository.ts, revokeAllBy). Both are handed in by whoever builds the steps
 * (people/plugin.ts), so this file writes only the users row.
 */
export function createSuspensionSteps(
  sqlite: Database.Database,
  counters: Counters,
  personSteps: readonly PersonSteps[],
  withdrawInvites: (user: number, at: number) => void,
) {
  // The counters and bells it moves are counters.ts's (suspending, suspensionLifted).
  // Its likes, comments and follows stop notifying while it lasts (notifications-repository.ts reads them with this rule).
  const suspended = sqlite.prepare<[number], number>('SELECT 1 FROM users WHERE id = ? AND suspended_at IS NOT NULL').pluck();
  const mark = sqlite.prepare<{ user: number; at: number | null; reason: string | null }>(
    'UPDATE users SET suspended_at = @at, suspension_reason = @reason WHERE id = @user',
  );

  const hide = (user: number, hidden: boolean) => {
    for (const step of personSteps) step.hide?.(user, hidden);
  };
  return {
    isSuspended: (user: number) => suspended.get(user) !== undefined,
    /** Inside the caller's transaction. */
    suspend(user: number, reason: string, at: number) {
      counters.suspending(user);
      hide(user, true);
      mark.run({ user, at, reason });
      withdrawInvites(user, at);
    },
    /** Inside the caller's transaction; nothing when the account is not suspended. */
    lift(user: number) {
      if (suspended.get(user) === undefined) return;
      hide(user, false);
      mark.run({ user, at: null, reason: null });
      counters.suspensionLifted(user);
    },
  };
}

export type SuspensionSteps = ReturnType<typeof createSuspensionSteps>;
