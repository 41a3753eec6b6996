import type Database from 'better-sqlite3';
import type { PersonSteps } from '../kernel/person-steps.js';

/**
 * Federation's part in removing a person (kernel/person-steps.ts), run first, while their follows
 * still stand: the people of other servers who follow them or whom they follow are kept in
 * federation_actor_deletions, to be sent the Delete of their actor (post-activities.ts). Nothing
 * is written for someone no other server knows, which is everyone while federation is off, nor
 * for a person of another server (they are told by their own).
 */
export function federationPersonSteps(sqlite: Database.Database): PersonSteps {
  const record = sqlite.prepare<{ me: number; at: number }>(`
    INSERT OR REPLACE INTO federation_actor_deletions (user_id, recipients, created_at)
    SELECT @me, json_group_array(json_object('uri', r.uri, 'inbox', r.inbox, 'sharedInbox', r.shared_inbox)), @at
    FROM remote_actors r
    WHERE r.user_id IN (SELECT follower_id FROM follows WHERE followee_id = @me UNION SELECT followee_id FROM follows WHERE follower_id = @me)
    HAVING count(*) > 0 AND (SELECT host FROM users WHERE id = @me) IS NULL`);
  // A person of another server (removed there, remote-posts.ts): their actor is forgotten, so its
  // address no longer leads to the removed row, and a new account there at that address starts afresh.
  const forgetActor = sqlite.prepare<[number]>('DELETE FROM remote_actors WHERE user_id = ?');
  return {
    remove({ id }) {
      record.run({ me: id, at: Date.now() });
      forgetActor.run(id);
    },
  };
}
