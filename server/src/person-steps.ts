import type Database from 'better-sqlite3';
import type { FastifyBaseLogger } from 'fastify';
import type { PersonSteps } from './kernel/person-steps.js';
import type { Storage } from './kernel/storage/storage.js';
import { createShared } from './kernel/shared.js';
import { socialPersonSteps } from './social/person-steps.js';
import { federationPersonSteps } from './federation/person-steps.js';
import { postsPersonSteps } from './posts/person-steps.js';
import { mediaPersonSteps } from './media/person-steps.js';
import { idpPersonSteps } from './idp/person-steps.js';
import { createSuspensionSteps } from './people/suspension.js';
import { createAccountRemovalService } from './people/account-removal-service.js';
import { createInvitesRepository } from './registration/invites-repository.js';

/**
 * Every capability's part in removing or suspending a person (kernel/person-steps.ts), in the
 * order they run: what the person did to others (likes, comments, follows), then what they made
 * (posts, with others' likes and comments on them; uploads), then their sign-in. A capability
 * with rows of a person adds its steps here, and nowhere else: app.ts hands this list to
 * people/plugin.ts, and the standalone removal below uses the same list.
 */
export const createPersonSteps = (sqlite: Database.Database): PersonSteps[] => [
  // First: who on other servers is to be told, read before the follows go.
  federationPersonSteps(sqlite),
  socialPersonSteps(sqlite),
  postsPersonSteps(sqlite),
  mediaPersonSteps(sqlite),
  idpPersonSteps(sqlite),
];

/**
 * Account removal for a process without the app (npm run user:remove, and tests that remove as
 * the script does): what people/plugin.ts builds, over the same database.
 */
export function createStandaloneAccountRemoval({ sqlite, storage, log }: { sqlite: Database.Database; storage: Storage; log: Pick<FastifyBaseLogger, 'warn'> }) {
  const shared = createShared(sqlite);
  const personSteps = createPersonSteps(sqlite);
  const invites = createInvitesRepository(sqlite);
  const suspension = createSuspensionSteps(sqlite, shared.counters, personSteps, (user, at) => invites.revokeAllBy(user, 'maker_suspended', at));
  return createAccountRemovalService({ sqlite, storage, log, shared, personSteps, suspension, invites });
}
