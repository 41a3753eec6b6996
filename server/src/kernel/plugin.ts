import fp from 'fastify-plugin';
import type { Config } from './config.js';
import { openDatabase, type DatabaseHandle } from './db/client.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    database: DatabaseHandle;
  }
}

/** Opens the database (migrating it) and closes it last when the server closes. */
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
  },
  { name: 'db' },
);
