import type { FastifyPluginAsync } from 'fastify';
import { compressJson } from '../compression.js';
import accountRoutes from './account.js';
import adminRoutes from './admin.js';
import passwordRoutes from './passwords.js';
import commentRoutes from './comments.js';
import exportRoutes from './export.js';
import feedRoutes from './feeds.js';
import followRoutes from './follows.js';
import inviteRoutes from './invites.js';
import likeRoutes from './likes.js';
import moderationRoutes from './moderation.js';
import notificationRoutes from './notifications.js';
import postEditRoutes from './post-edits.js';
import sessionRoutes from './session.js';
import userRoutes from './users.js';

/**
 * The social API under /api: feeds, profiles, likes, comments, follows, search.
 * Every route needs a valid bearer token. The repositories come from the
 * instance (plugins/repositories.ts), so route files import nothing from here.
 */
const apiRoutes: FastifyPluginAsync = async (fastify) => {
  // onRequest, not preHandler: without a valid token the answer is 401 before any body is parsed or validated.
  fastify.addHook('onRequest', fastify.authenticate);
  // Feed pages, grids and lists gzip-compressed for clients that take it (server/src/compression.ts).
  fastify.addHook('onSend', compressJson);
  await fastify.register(feedRoutes);
  await fastify.register(likeRoutes);
  await fastify.register(commentRoutes);
  await fastify.register(followRoutes);
  await fastify.register(userRoutes);
  await fastify.register(sessionRoutes);
  await fastify.register(accountRoutes);
  await fastify.register(exportRoutes);
  await fastify.register(moderationRoutes);
  await fastify.register(notificationRoutes);
  await fastify.register(postEditRoutes);
  await fastify.register(inviteRoutes);
  await fastify.register(adminRoutes, { prefix: '/admin' });
  await fastify.register(passwordRoutes);
};

export default apiRoutes;
