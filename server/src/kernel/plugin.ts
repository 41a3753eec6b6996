import fp from 'fastify-plugin';
import type { Config } from './config.js';
import { openDatabase, type DatabaseHandle } from './db/client.js';
import { createWriteBatcher, type WriteBatcher } from './db/write-batch.js';
import { createShared, type Shared } from './shared.js';
import { createStorage } from './storage/index.js';
import type { Storage } from './storage/storage.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    database: DatabaseHandle;
    /** The counters' writer and the live-user check, built once for every repository that writes (kernel/shared.ts). */
    shared: Shared;
    /** Likes, comments and follows committed together with the others sent at the same time. */
    writes: WriteBatcher;
    /** Where photos live: a local folder or an S3 server (kernel/storage/). */
    storage: Storage;
  }
}

/**
 * What every capability stands on: the configuration, the database (opened and migrated here,
 * closed last when the server closes), the shared write rules, the write batcher and the storage
 * driver. Each capability's plugin names 'kernel' among its dependencies.
 */
export default fp<{ config: Config; database?: DatabaseHandle }>(
  async (fastify, opts) => {
    fastify.decorate('config', opts.config);
    const database = opts.database ?? openDatabase(opts.config.databaseFile, opts.config.migrationsDir);
    fastify.decorate('database', database);
    if (database.applied.length > 0) {
      fastify.log.info({ migrations: database.applied }, `applied ${database.applied.length} migration(s) at start, up to ${database.applied.at(-1)}`);
    }
    fastify.addHook('onClose', async () => {
      if (!opts.database) database.close();
    });
    fastify.decorate('shared', createShared(database.sqlite));
    fastify.decorate('writes', createWriteBatcher(database.sqlite));
    fastify.decorate('storage', await createStorage(opts.config));
  },
  { name: 'kernel' },
);
