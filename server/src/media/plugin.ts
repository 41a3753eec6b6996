import fp from 'fastify-plugin';
import { createLimiter } from './images/limiter.js';
import { createStorage } from '../kernel/storage/index.js';
import type { Storage } from '../kernel/storage/storage.js';
import { createMediaRepository } from './media-repository.js';
import { createMediaService, type MediaService } from './media-service.js';
import { sweepOrphans } from './orphan-sweep.js';
import mediaRoutes from './media-routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    storage: Storage;
    media: MediaService;
    /** Runs the orphan sweep now (it also runs at start-up and hourly). */
    sweepOrphanUploads(now?: number): Promise<{ rows: number; files: number }>;
  }
}

const HOUR = 3600_000;
/** Image jobs waiting beyond the running ones; past this, create-post answers 503 at once. */
const MAX_QUEUED_IMAGES = 16;

/**
 * Storage, uploads, the image pipeline and the post write side: presign,
 * the local driver's upload endpoint, create-post, delete-post and /media.
 */
export default fp(
  async (fastify) => {
    const { config } = fastify;
    const storage = await createStorage(config);
    const repo = createMediaRepository(fastify.database.sqlite);
    const limiter = createLimiter(config.uploads.imageConcurrency, MAX_QUEUED_IMAGES);
    const service = createMediaService({ config, storage, repo, limiter, log: fastify.log });
    fastify.decorate('storage', storage);
    fastify.decorate('media', service);

    let running: Promise<unknown> | null = null;
    const sweep = (now?: number) => {
      const job = sweepOrphans(
        { repo, storage, sqlite: fastify.database.sqlite, ttlSeconds: config.uploads.orphanTtlSeconds, log: fastify.log },
        now,
      );
      running = job.finally(() => {
        if (running === tracked) running = null;
      });
      const tracked = running;
      return job;
    };
    fastify.decorate('sweepOrphanUploads', sweep);

    let timer: NodeJS.Timeout | undefined;
    const background = () => {
      if (running) return;
      sweep().catch((err: Error) => fastify.log.warn({ err: err.message }, 'orphan upload sweep failed'));
    };
    fastify.addHook('onReady', async () => {
      background();
      timer = setInterval(background, HOUR).unref();
    });
    fastify.addHook('onClose', async () => {
      clearInterval(timer);
      await running?.catch(() => {});
    });

    await fastify.register(mediaRoutes, { service });
  },
  { name: 'media', dependencies: ['db', 'auth'] },
);
