import fp from 'fastify-plugin';
import { createPostCaptions, type PostCaptions } from './post-captions.js';
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
    /** Where hashtags/ and social/ listen for captions written (post-captions.ts). */
    postCaptions: PostCaptions;
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
    // Hashtags and mentions hear of every caption written (post-captions.ts); their plugins register after this one.
    const captions = createPostCaptions(sqlite);
    fastify.decorate('postCaptions', captions);
    const edits = createPostEditsRepository(sqlite, fastify.shared, posts, captions.written);
    fastify.decorate('postEdits', edits);
    const { config, storage, uploads, media, imageLimiter } = fastify;
    const blur = createContentWarningsService({
      sqlite, shared: fastify.shared, storage, limiter: imageLimiter, repo: createContentWarningsRepository(sqlite), edits, log: fastify.log,
    });
    fastify.decorate('contentWarnings', blur);
    const repo = createPostWritesRepository(sqlite, fastify.shared, uploads.storageUsed, captions.written);
    fastify.decorate('postWrites', createPostWritesService({ config, storage, uploads, media, repo, limiter: imageLimiter, log: fastify.log, blur }));
  },
  { name: 'posts', dependencies: ['kernel', 'media'] },
);
