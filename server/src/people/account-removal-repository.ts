import type Database from 'better-sqlite3';
import type { Shared } from '../kernel/shared.js';
import type { PersonSteps } from '../kernel/person-steps.js';
import type { SuspensionSteps } from './suspension.js';
import type { InvitesRepository } from '../registration/invites-repository.js';

export interface RemovedAccount {
  /** Its posts (profile pictures included), whatever their photos. */
  postCount: number;
  /** The stored files its rows pointed at: its posts' images (every rendition) and its raw uploads. */
  files: string[];
}

/**
 * Removes an account's traces in one IMMEDIATE transaction: each capability's steps delete its
 * own rows of the person (kernel/person-steps.ts, listed in server/src/person-steps.ts: its likes,
 * comments and follows, its posts with the likes and comments on them, its uploads, its
 * embedded-provider account), after the counters they moved on other people's posts and
 * profiles are taken back, and its invite links are withdrawn. The users row stays, marked
 * deleted and renamed out of the way, so its tokens stay refused and its name is free.
 *
 * Feeds never filter on users.deleted_at (posts/posts-repository.ts): the rows are gone
 * instead, and the epochs that key the feed caches move with them (by trigger), so every
 * connection stops showing them with the next request.
 */
export function createAccountRemovalRepository(
  sqlite: Database.Database,
  { counters }: Shared,
  personSteps: readonly PersonSteps[],
  suspension: SuspensionSteps,
  invites: Pick<InvitesRepository, 'revokeAllBy'>,
) {
  const live = sqlite.prepare<[number], { sub: string }>('SELECT sub FROM users WHERE id = ? AND deleted_at IS NULL');
  // "~" is outside every name a person can choose, so the tombstone never takes a real name.
  const tombstone = sqlite.prepare<{ me: number; now: number }>(
    `UPDATE users SET deleted_at = @now, username = '~removed-' || id, email = NULL, profile_picture_key = NULL WHERE id = @me`,
  );

  const remove = sqlite.transaction((userId: number, now: number): RemovedAccount | null => {
    const user = live.get(userId);
    if (!user) return null;
    // A suspended account's likes, comments and follows count for nobody: counted back first, so the steps take them out once.
    suspension.lift(userId);
    // What it made stops notifying and counting: the bells and counters it is in go down before its rows go.
    counters.accountRemoving(userId);
    const removed: RemovedAccount = { postCount: 0, files: [] };
    for (const step of personSteps) {
      const left = step.remove?.({ id: userId, sub: user.sub });
      if (left?.files) removed.files.push(...left.files);
      if (left?.posts) removed.postCount += left.posts;
    }
    tombstone.run({ me: userId, now });
    // Its open invite links go with it (the rows stay: the operator page says they were withdrawn, and why).
    invites.revokeAllBy(userId, 'maker_removed', now);
    counters.accountRemoved(userId);
    return removed;
  });

  return {
    /** null when there is no such live user. */
    remove: (userId: number, now: number = Date.now()) => remove.immediate(userId, now),
  };
}

export type AccountRemovalRepository = ReturnType<typeof createAccountRemovalRepository>;
