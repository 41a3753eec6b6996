import fp from 'fastify-plugin';
import { createReadPool, type ReadPool } from './read-pool.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Feed pages as JSON text, computed on the read workers. */
    reads: ReadPool;
  }
}

/** Feed pages off the request thread: the read pool's worker threads, each with a read connection. */
export default fp(
  async (fastify) => {
    const reads = await createReadPool(fastify.database.sqlite, fastify.posts, fastify.config.readWorkers);
    // Root-level onClose hooks run last-registered first: pages in flight finish before the database closes.
    fastify.addHook('onClose', () => reads.close());
    fastify.decorate('reads', reads);
  },
  { name: 'feeds', dependencies: ['kernel', 'posts', 'hashtags'] },
);
