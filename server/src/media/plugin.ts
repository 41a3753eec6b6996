import fp from 'fastify-plugin';
import { createLimiter, type Limiter } from './images/limiter.js';
import { createMediaRepository, type MediaRepository } from './media-repository.js';
import { createMediaService, type MediaService } from './media-service.js';
import { sweepOrphans } from './orphan-sweep.js';
import mediaRoutes from './media-routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    media: MediaService;
    /** The uploads' rows: a post claims the ones it is made of (posts/post-writes-service.ts). */
    uploads: MediaRepository;
    /** The image jobs (sharp) running and waiting: past MAX_QUEUED_IMAGES waiting, create-post answers 503 at once. */
    imageLimiter: Limiter;
    /** Runs the orphan sweep now (it also runs at start-up and hourly). */
    sweepOrphanUploads(now?: number): Promise<{ rows: number; files: number }>;
    /**
     * Asked when a rendition under /media/ is not stored: true when it is a remote photo dropped
     * to be fetched again (federation/remote-media.ts sets it), and a placeholder is served meanwhile.
     */
    missingMedia: { handler: ((mediaKey: string) => boolean) | null };
  }
}

const HOUR = 3600_000;
/** Image jobs waiting beyond the running ones; past this, create-post answers 503 at once. */
const MAX_QUEUED_IMAGES = 16;

/**
 * Uploads and the image pipeline: presign, the local driver's upload endpoint, the
 * storage use, the orphan sweep and /media (a post made of uploads is posts/'s).
 */
export default fp(
  async (fastify) => {
    const { config } = fastify;
    const { storage } = fastify;
    const repo = createMediaRepository(fastify.database.sqlite, fastify.shared);
    const limiter = createLimiter(config.uploads.imageConcurrency, MAX_QUEUED_IMAGES);
    const service = createMediaService({ config, storage, repo, log: fastify.log });
    fastify.decorate('uploads', repo);
    fastify.decorate('imageLimiter', limiter);
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

    const missingMedia: { handler: ((mediaKey: string) => boolean) | null } = { handler: null };
    fastify.decorate('missingMedia', missingMedia);
    await fastify.register(mediaRoutes, { service, limiter, missing: (mediaKey) => missingMedia.handler?.(mediaKey) ?? false });
  },
  { name: 'media', dependencies: ['kernel', 'people'] },
);
