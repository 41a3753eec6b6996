import fp from 'fastify-plugin';
import { createBlocksRepository, type BlocksRepository } from '../moderation/blocks-repository.js';
import { createCommentsRepository, type CommentsRepository } from '../social/comments-repository.js';
import { createFollowsRepository, type FollowsRepository } from '../social/follows-repository.js';
import { createLikesRepository, type LikesRepository } from '../social/likes-repository.js';
import { createModerationRepository, type ModerationRepository } from '../moderation/moderation-repository.js';
import { createNotificationsRepository, type NotificationsRepository } from '../social/notifications-repository.js';
import { createPostEditsRepository, type PostEditsRepository } from '../posts/post-edits-repository.js';
import { createPostsRepository, type PostsRepository } from '../posts/posts-repository.js';
import { createWriteBatcher, type WriteBatcher } from '../kernel/db/write-batch.js';
import { createReadPool, type ReadPool } from '../feeds/read-pool.js';

declare module 'fastify' {
  interface FastifyInstance {
    posts: PostsRepository;
    /** Feed pages as JSON text, computed on the read workers. */
    reads: ReadPool;
    /** Likes, comments and follows committed together with the others sent at the same time. */
    writes: WriteBatcher;
    likes: LikesRepository;
    comments: CommentsRepository;
    follows: FollowsRepository;
    blocks: BlocksRepository;
    moderation: ModerationRepository;
    notifications: NotificationsRepository;
    /** Edits of a post by its author and the versions they leave. */
    postEdits: PostEditsRepository;
  }
}

/**
 * The repositories the API's routes use, with their statements prepared once, as
 * decorations of the instance: route files read them from `fastify` and import
 * nothing from each other or from here.
 */
export default fp(
  async (fastify) => {
    const { sqlite } = fastify.database;
    const posts = createPostsRepository(sqlite);
    const reads = await createReadPool(sqlite, posts, fastify.config.readWorkers);
    // Root-level onClose hooks run last-registered first: pages in flight finish before the database closes.
    fastify.addHook('onClose', () => reads.close());
    fastify.decorate('posts', posts);
    fastify.decorate('reads', reads);
    fastify.decorate('writes', createWriteBatcher(sqlite));
    fastify.decorate('likes', createLikesRepository(sqlite, posts));
    const comments = createCommentsRepository(sqlite, posts);
    fastify.decorate('comments', comments);
    fastify.decorate('follows', createFollowsRepository(sqlite));
    fastify.decorate('blocks', createBlocksRepository(sqlite, posts));
    fastify.decorate('moderation', createModerationRepository(sqlite, posts, comments));
    fastify.decorate('notifications', createNotificationsRepository(sqlite));
    fastify.decorate('postEdits', createPostEditsRepository(sqlite, posts));
  },
  { name: 'repositories', dependencies: ['db'] },
);
