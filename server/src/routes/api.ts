import type { FastifyPluginAsync } from 'fastify';
import { createCommentsRepository, type CommentsRepository } from '../domain/comments-repository.js';
import { createFollowsRepository, type FollowsRepository } from '../domain/follows-repository.js';
import { createLikesRepository, type LikesRepository } from '../domain/likes-repository.js';
import { createReadPool, type ReadPool } from '../db/read-pool.js';
import { createWriteBatcher, type WriteBatcher } from '../db/write-batch.js';
import { createPostsRepository, type PostsRepository } from '../domain/posts-repository.js';
import type { UsersRepository } from '../domain/users-repository.js';
import accountRoutes from './account.js';
import commentRoutes from './comments.js';
import feedRoutes from './feeds.js';
import followRoutes from './follows.js';
import likeRoutes from './likes.js';
import sessionRoutes from './session.js';
import userRoutes from './users.js';

/**
 * The social API under /api: feeds, profiles, likes, comments, follows, search.
 * Every route needs a valid bearer token. Statements are prepared once, here.
 */
const apiRoutes: FastifyPluginAsync = async (fastify) => {
  // onRequest, not preHandler: without a valid token the answer is 401 before any body is parsed or validated.
  fastify.addHook('onRequest', fastify.authenticate);

  const { sqlite } = fastify.database;
  const posts = createPostsRepository(sqlite);
  const reads = await createReadPool(sqlite, posts, fastify.config.readWorkers);
  // Closed before the database (Fastify closes plugins in reverse order): pages in flight finish first.
  fastify.addHook('onClose', () => reads.close());
  const deps: ApiDeps = {
    posts,
    reads,
    writes: createWriteBatcher(sqlite),
    users: fastify.users,
    likes: createLikesRepository(sqlite, posts),
    comments: createCommentsRepository(sqlite, posts),
    follows: createFollowsRepository(sqlite),
  };

  await fastify.register(feedRoutes, deps);
  await fastify.register(likeRoutes, deps);
  await fastify.register(commentRoutes, deps);
  await fastify.register(followRoutes, deps);
  await fastify.register(userRoutes, deps);
  await fastify.register(sessionRoutes, deps);
  await fastify.register(accountRoutes, deps);
};

/** What the route files get: repositories with their statements already prepared. */
export interface ApiDeps {
  posts: PostsRepository;
  /** Feed pages as JSON text, computed on the read workers. */
  reads: ReadPool;
  /** Likes, comments and follows committed together with the others sent at the same time. */
  writes: WriteBatcher;
  users: UsersRepository;
  likes: LikesRepository;
  comments: CommentsRepository;
  follows: FollowsRepository;
}

export default apiRoutes;
