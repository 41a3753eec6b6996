import fp from 'fastify-plugin';
import { createPostEditsRepository, type PostEditsRepository } from './post-edits-repository.js';
import { createPostsRepository, type PostsRepository } from './posts-repository.js';
import { createPostWritesRepository } from './post-writes-repository.js';
import { createPostWritesService, type PostWritesService } from './post-writes-service.js';
import { createContentWarningsRepository } from './content-warnings-repository.js';
import { createContentWarningsService, type ContentWarningsService } from './content-warnings-service.js';

declare module 'fastify' {
  interface FastifyInstance {
    posts: PostsRepository;
    /** Edits of a post by its author and the versions they leave. */
    postEdits: PostEditsRepository;
    /** create-post, delete-post and an operator's removal (post-writes-service.ts). */
    postWrites: PostWritesService;
    /** Sensitive posts: marking them (author or operator), "Show photo", "Always show sensitive photos". */
    contentWarnings: ContentWarningsService;
  }
}

/** Posts: making them of uploads, reading them (feeds, profiles, one post), editing and deleting them, and the one writer of a Post's JSON. */
export default fp(
  async (fastify) => {
    const { sqlite } = fastify.database;
    const posts = createPostsRepository(sqlite);
    fastify.decorate('posts', posts);
    const edits = createPostEditsRepository(sqlite, fastify.shared, posts);
    fastify.decorate('postEdits', edits);
    const { config, storage, uploads, media, imageLimiter } = fastify;
    const blur = createContentWarningsService({
      sqlite, shared: fastify.shared, storage, limiter: imageLimiter, repo: createContentWarningsRepository(sqlite), edits, log: fastify.log,
    });
    fastify.decorate('contentWarnings', blur);
    const repo = createPostWritesRepository(sqlite, fastify.shared, uploads.storageUsed);
    fastify.decorate('postWrites', createPostWritesService({ config, storage, uploads, media, repo, limiter: imageLimiter, log: fastify.log, blur }));
  },
  { name: 'posts', dependencies: ['kernel', 'media'] },
);
