import fp from 'fastify-plugin';
import { createCommentsRepository, type CommentsRepository } from './comments-repository.js';
import { createFollowsRepository, type FollowsRepository } from './follows-repository.js';
import { createLikesRepository, type LikesRepository } from './likes-repository.js';
import { createNotificationsRepository, type NotificationsRepository } from './notifications-repository.js';

declare module 'fastify' {
  interface FastifyInstance {
    likes: LikesRepository;
    comments: CommentsRepository;
    follows: FollowsRepository;
    notifications: NotificationsRepository;
  }
}

/** Likes, comments, follows (and follow requests) and the notifications they make. */
export default fp(
  async (fastify) => {
    const { shared, posts } = fastify;
    const { sqlite } = fastify.database;
    fastify.decorate('likes', createLikesRepository(sqlite, shared, posts));
    fastify.decorate('comments', createCommentsRepository(sqlite, shared, posts));
    fastify.decorate('follows', createFollowsRepository(sqlite, shared));
    fastify.decorate('notifications', createNotificationsRepository(sqlite, shared));
  },
  { name: 'social', dependencies: ['kernel', 'posts'] },
);
