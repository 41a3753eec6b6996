import type Database from 'better-sqlite3';
import type { PersonSteps } from '../kernel/person-steps.js';

/**
 * A person's account with the embedded provider, for account removal (kernel/person-steps.ts):
 * their password and e-mail go, so the name can sign up afresh. With another provider there is
 * no such row and nothing happens.
 */
export function idpPersonSteps(sqlite: Database.Database): PersonSteps {
  const remove = sqlite.prepare<[string]>('DELETE FROM idp_accounts WHERE id = ?');
  return {
    remove: ({ sub }) => void remove.run(sub),
  };
}
