import type { FastifyPluginAsync } from 'fastify';
import { compressJson } from './kernel/compression.js';
import accountRoutes from './people/account-routes.js';
import adminRoutes from './moderation/admin-routes.js';
import registrationAdminRoutes from './registration/registration-admin-routes.js';
import passwordRoutes from './idp/password-routes.js';
import commentRoutes from './social/comment-routes.js';
import exportRoutes from './export/export-routes.js';
import federationAdminRoutes from './federation/admin-routes.js';
import feedRoutes from './feeds/feed-routes.js';
import followRoutes from './social/follow-routes.js';
import hashtagRoutes from './hashtags/hashtag-routes.js';
import inviteRoutes from './registration/invite-routes.js';
import likeRoutes from './social/like-routes.js';
import moderationRoutes from './moderation/moderation-routes.js';
import serverMuteRoutes from './moderation/server-mute-routes.js';
import notificationRoutes from './social/notification-routes.js';
import postEditRoutes from './posts/post-edits-routes.js';
import contentWarningRoutes from './posts/content-warning-routes.js';
import sessionRoutes from './people/session-routes.js';
import userRoutes from './people/user-routes.js';

/**
 * Every route under /api that needs a token, from each capability's route files. The services
 * they call are the instance's decorations, built once by the capability plugins (app.ts), so
 * route files import no plugin and build nothing of their own.
 */
const apiRoutes: FastifyPluginAsync = async (fastify) => {
  // onRequest, not preHandler: without a valid token the answer is 401 before any body is parsed or validated.
  fastify.addHook('onRequest', fastify.authenticate);
  // Feed pages, grids and lists gzip-compressed for clients that take it (server/src/kernel/compression.ts).
  fastify.addHook('onSend', compressJson);
  await fastify.register(feedRoutes);
  await fastify.register(hashtagRoutes);
  await fastify.register(likeRoutes);
  await fastify.register(commentRoutes);
  await fastify.register(followRoutes);
  await fastify.register(userRoutes);
  await fastify.register(sessionRoutes);
  await fastify.register(accountRoutes);
  await fastify.register(exportRoutes);
  await fastify.register(moderationRoutes);
  await fastify.register(serverMuteRoutes);
  await fastify.register(notificationRoutes);
  await fastify.register(postEditRoutes);
  await fastify.register(contentWarningRoutes);
  await fastify.register(inviteRoutes);
  await fastify.register(passwordRoutes);
  // The operator's API: one check for all of it (moderation/plugin.ts), on onRequest after
  // `authenticate`, so anyone else gets 403 before the body is even parsed.
  await fastify.register(
    async (admin) => {
      admin.addHook('onRequest', admin.requireOperator);
      await admin.register(adminRoutes);
      await admin.register(registrationAdminRoutes);
      await admin.register(federationAdminRoutes);
    },
    { prefix: '/admin' },
  );
};

export default apiRoutes;
