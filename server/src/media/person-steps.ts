import type Database from 'better-sqlite3';
import type { PersonSteps } from '../kernel/person-steps.js';

/** A person's raw uploads not yet turned into posts, for account removal (kernel/person-steps.ts). */
export function mediaPersonSteps(sqlite: Database.Database): PersonSteps {
  const keys = sqlite.prepare<[number], string>('SELECT key FROM uploads WHERE user_id = ?').pluck();
  const remove = sqlite.prepare<[number]>('DELETE FROM uploads WHERE user_id = ?');
  return {
    remove({ id }) {
      const files = keys.all(id);
      remove.run(id);
      return { files };
    },
  };
}
