import type Database from 'better-sqlite3';
import type { PersonSteps } from '../kernel/person-steps.js';

/** A person's likes, comments, follows and follow requests, for account removal and suspension (kernel/person-steps.ts). */
export function socialPersonSteps(sqlite: Database.Database): PersonSteps {
  const removals = [
    'DELETE FROM likes WHERE user_id = @me',
    'DELETE FROM comments WHERE user_id = @me',
    'DELETE FROM follows WHERE follower_id = @me OR followee_id = @me',
    'DELETE FROM follow_requests WHERE requester_id = @me OR target_id = @me',
  ].map((sql) => sqlite.prepare<{ me: number }>(sql));
  // Hiding a comment moves comments_epoch (migration 0004's trigger).
  const hide = sqlite.prepare<{ user: number; hidden: number }>('UPDATE comments SET hidden = @hidden WHERE user_id = @user');
  return {
    remove({ id }) {
      for (const step of removals) step.run({ me: id });
    },
    hide: (user, hidden) => void hide.run({ user, hidden: hidden ? 1 : 0 }),
  };
}
