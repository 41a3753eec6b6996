import fp from 'fastify-plugin';
import { createCommentsRepository, type CommentsRepository } from './comments-repository.js';
import { createFollowsRepository, type FollowsRepository } from './follows-repository.js';
import { createMentionsRepository } from './mentions-repository.js';
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

/** Likes, comments, follows (and follow requests), mentions and the notifications they make. */
export default fp(
  async (fastify) => {
    const { shared, posts } = fastify;
    const { sqlite } = fastify.database;
    fastify.decorate('likes', createLikesRepository(sqlite, shared, posts));
    const mentions = createMentionsRepository(sqlite, shared, posts);
    // A caption's mentions are written with it (posts/post-captions.ts); a comment's by comments-repository.ts.
    fastify.postCaptions.listen((write) => mentions.caption(write));
    fastify.decorate('comments', createCommentsRepository(sqlite, shared, posts, mentions));
    fastify.decorate('follows', createFollowsRepository(sqlite, shared));
    fastify.decorate('notifications', createNotificationsRepository(sqlite, shared));
  },
  { name: 'social', dependencies: ['kernel', 'posts'] },
);
