import type Database from 'better-sqlite3';
import { createCounters } from '../kernel/counters.js';
import { createInvitesRepository } from '../registration/invites-repository.js';
import { createSuspensionSteps } from '../kernel/suspension.js';

export interface RemovedAccount {
  /** Its posts (profile pictures included), whatever their photos. */
  postCount: number;
  /** Processed images of the account's posts, their albums' other photos and profile pictures (display and thumb under each). */
  mediaKeys: string[];
  /** Those of mediaKeys that also have a medium rendition (posts.medium_width > 0). */
  mediumKeys: string[];
  /** Raw uploads not yet turned into posts. */
  uploadKeys: string[];
}

/**
 * Removes an account's traces in one IMMEDIATE transaction: its posts (with the
 * likes and comments on them), its likes, comments and follows (with the
 * counters they moved on other people's posts and profiles), its uploads and
 * its embedded-provider account, and withdraws its invite links. The users row stays, marked deleted and
 * renamed out of the way, so its tokens stay refused and its name is free.
 *
 * Feeds never filter on users.deleted_at (posts-repository.ts): the rows are
 * gone instead, and the epochs that key the feed caches move with them (by
 * trigger), so every connection stops showing them with the next request.
 */
export function createAccountRemovalRepository(sqlite: Database.Database) {
  const live = sqlite.prepare<[number], { sub: string }>('SELECT sub FROM users WHERE id = ? AND deleted_at IS NULL');
  // An album's other photos (post_photos) too: every processed image the account's posts hold.
  const mediaKeys = sqlite.prepare<[number, number], string>(
    `SELECT media_key FROM posts WHERE user_id = ?
     UNION ALL SELECT f.media_key FROM posts p JOIN post_photos f ON f.post_id = p.id WHERE p.user_id = ? AND p.photo_count > 1`,
  ).pluck();
  const mediumKeys = sqlite.prepare<[number, number], string>(
    `SELECT media_key FROM posts WHERE user_id = ? AND medium_width > 0
     UNION ALL SELECT f.media_key FROM posts p JOIN post_photos f ON f.post_id = p.id WHERE p.user_id = ? AND p.photo_count > 1 AND f.medium_width > 0`,
  ).pluck();
  const postCount = sqlite.prepare<[number], number>('SELECT count(*) FROM posts WHERE user_id = ?').pluck();
  const uploadKeys = sqlite.prepare<[number], string>('SELECT key FROM uploads WHERE user_id = ?').pluck();
  // Its likes, comments and follows, once counters.accountRemoving took them out of everyone's counters.
  const steps = [
    'DELETE FROM likes WHERE user_id = @me',
    'DELETE FROM comments WHERE user_id = @me',
    'DELETE FROM follows WHERE follower_id = @me OR followee_id = @me',
    'DELETE FROM follow_requests WHERE requester_id = @me OR target_id = @me',
    // Its posts take other people's likes and comments on them along (ON DELETE CASCADE).
    'DELETE FROM posts WHERE user_id = @me',
    'DELETE FROM uploads WHERE user_id = @me',
    'DELETE FROM idp_accounts WHERE id = @sub',
    // "~" is outside every name a person can choose, so the tombstone never takes a real name.
    `UPDATE users SET deleted_at = @now, username = '~removed-' || id, email = NULL, profile_picture_key = NULL
     WHERE id = @me`,
  ].map((sql) => sqlite.prepare(sql));

  const suspension = createSuspensionSteps(sqlite);
  const counters = createCounters(sqlite);
  const invites = createInvitesRepository(sqlite);
  const remove = sqlite.transaction((userId: number, now: number): RemovedAccount | null => {
    const user = live.get(userId);
    if (!user) return null;
    // A suspended account's likes, comments and follows count for nobody: counted back first, so the steps take them out once.
    suspension.lift(userId);
    // What it made stops notifying and counting: the bells and counters it is in go down before its rows go.
    counters.accountRemoving(userId);
    const removed = { postCount: postCount.get(userId) ?? 0, mediaKeys: mediaKeys.all(userId, userId), mediumKeys: mediumKeys.all(userId, userId), uploadKeys: uploadKeys.all(userId) };
    const params = { me: userId, sub: user.sub, now };
    for (const step of steps) step.run(params);
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
