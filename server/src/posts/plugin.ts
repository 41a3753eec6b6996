import fp from 'fastify-plugin';
import { createPostEditsRepository, type PostEditsRepository } from './post-edits-repository.js';
import { createPostsRepository, type PostsRepository } from './posts-repository.js';

declare module 'fastify' {
  interface FastifyInstance {
    posts: PostsRepository;
    /** Edits of a post by its author and the versions they leave. */
    postEdits: PostEditsRepository;
  }
}

/** Posts: reading them (feeds, profiles, one post), editing them, and the one writer of a Post's JSON. */
export default fp(
  async (fastify) => {
    const { sqlite } = fastify.database;
    const posts = createPostsRepository(sqlite);
    fastify.decorate('posts', posts);
    fastify.decorate('postEdits', createPostEditsRepository(sqlite, fastify.shared, posts));
  },
  { name: 'posts', dependencies: ['kernel', 'media'] },
);
