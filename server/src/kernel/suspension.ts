import type Database from 'better-sqlite3';
import { createCounters } from './counters.js';
import { createInvitesRepository } from '../registration/invites-repository.js';

/**
 * What suspending an account does to the counters, and lifting it undoes: while
 * suspended, its likes, comments and follows count for nobody (posts.like_count,
 * comment_count, users.likes_received, comments_received, follower_count and
 * following_count of everyone, itself included), and its posts and comments are
 * hidden. The same statements run with `@sign` -1 to suspend and +1 to lift, over
 * the rows that exist at that moment, so they stay exact across everything that
 * may happen meanwhile:
 * - a suspended account cannot write, so its likes, comments and follows change
 *   only by deletion of the post or account they hang on, whose counters go too;
 * - removing a hidden comment moves no counter (comments-repository.ts);
 * - a suspended account has no profile, so nobody can unfollow or block it;
 * - removing a suspended account lifts the suspension first, in its transaction
 *   (account-removal-repository.ts).
 * Suspending also withdraws the account's open invite links (invites-repository.ts); lifting
 * does not bring them back, so links a spammer handed out stay dead.
 */
export function createSuspensionSteps(sqlite: Database.Database) {
  // The counters and bells it moves are counters.ts's (suspending, suspensionLifted).
  const steps = [
    // Hiding a post moves feed_epoch (migration 0009's trigger); hiding a comment, comments_epoch (0004).
    'UPDATE posts SET hidden = (@sign < 0) WHERE user_id = @user',
    'UPDATE comments SET hidden = (@sign < 0) WHERE user_id = @user',
  ].map((sql) => sqlite.prepare<{ user: number; sign: number }>(sql));
  // Its likes, comments and follows stop notifying while it lasts (notifications-repository.ts reads them with this rule).
  const counters = createCounters(sqlite);
  const invites = createInvitesRepository(sqlite);
  const suspended = sqlite.prepare<[number], number>('SELECT 1 FROM users WHERE id = ? AND suspended_at IS NOT NULL').pluck();
  const mark = sqlite.prepare<{ user: number; at: number | null; reason: string | null }>(
    'UPDATE users SET suspended_at = @at, suspension_reason = @reason WHERE id = @user',
  );

  const apply = (user: number, sign: -1 | 1) => {
    for (const step of steps) step.run({ user, sign });
  };
  return {
    isSuspended: (user: number) => suspended.get(user) !== undefined,
    /** Inside the caller's transaction. */
    suspend(user: number, reason: string, at: number) {
      counters.suspending(user);
      apply(user, -1);
      mark.run({ user, at, reason });
      invites.revokeAllBy(user, 'maker_suspended', at);
    },
    /** Inside the caller's transaction; nothing when the account is not suspended. */
    lift(user: number) {
      if (suspended.get(user) === undefined) return;
      apply(user, 1);
      mark.run({ user, at: null, reason: null });
      counters.suspensionLifted(user);
    },
  };
}
