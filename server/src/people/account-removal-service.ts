import type Database from 'better-sqlite3';
import type { FastifyBaseLogger } from 'fastify';
import type { Storage } from '../kernel/storage/storage.js';
import type { Shared } from '../kernel/shared.js';
import type { PersonSteps } from '../kernel/person-steps.js';
import type { SuspensionSteps } from './suspension.js';
import type { InvitesRepository } from '../registration/invites-repository.js';
import { createAccountRemovalRepository } from './account-removal-repository.js';

export interface AccountRemovalDeps {
  sqlite: Database.Database;
  storage: Storage;
  log: Pick<FastifyBaseLogger, 'warn'>;
  shared: Shared;
  /** Each capability's part (server/src/person-steps.ts). */
  personSteps: readonly PersonSteps[];
  suspension: SuspensionSteps;
  invites: Pick<InvitesRepository, 'revokeAllBy'>;
}

/**
 * Removing an account, for its owner (DELETE /api/account) and for the
 * operator (npm run user:remove): the database first, in one transaction, then
 * its files. A file that cannot be deleted now is logged and left for the
 * operator; the database never points at it again.
 */
export function createAccountRemovalService({ sqlite, storage, log, shared, personSteps, suspension, invites }: AccountRemovalDeps) {
  const repo = createAccountRemovalRepository(sqlite, shared, personSteps, suspension, invites);
  return {
    /** The number of images and uploads removed, or null when there is no such live user. */
    async remove(userId: number): Promise<{ posts: number; files: number } | null> {
      const removed = repo.remove(userId);
      if (!removed) return null;
      let files = 0;
      for (const key of removed.files) {
        try {
          await storage.delete(key);
          files++;
        } catch (err) {
          log.warn({ err: (err as Error).message, key }, 'could not remove a removed account’s file');
        }
      }
      return { posts: removed.postCount, files };
    },
  };
}

export type AccountRemovalService = ReturnType<typeof createAccountRemovalService>;

