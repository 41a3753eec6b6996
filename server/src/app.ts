import type { FastifyPluginAsync } from 'fastify';
import type { Config } from './kernel/config.js';
import type { DatabaseHandle } from './kernel/db/client.js';
import { errorHandler } from './kernel/errors.js';
import kernelPlugin from './kernel/plugin.js';
import openapiPlugin from './kernel/openapi.js';
import securityPlugin from './kernel/security.js';
import healthRoutes from './kernel/health-routes.js';
import registrationPlugin from './registration/plugin.js';
import instanceRoutes from './registration/instance-routes.js';
import peoplePlugin from './people/plugin.js';
import { createPersonSteps } from './person-steps.js';
import mediaPlugin from './media/plugin.js';
import postsPlugin from './posts/plugin.js';
import postWriteRoutes from './posts/post-write-routes.js';
import hashtagsPlugin from './hashtags/plugin.js';
import feedsPlugin from './feeds/plugin.js';
import socialPlugin from './social/plugin.js';
import moderationPlugin from './moderation/plugin.js';
import exportPlugin from './export/plugin.js';
import idpPlugin from './idp/plugin.js';
import federationPlugin from './federation/plugin.js';
import webPlugin from './web/plugin.js';
import publicConfigRoute from './web/public-config.js';
import apiRoutes from './api.js';

export interface AppOptions {
  config: Config;
  /** An already open database (tests, scripts); otherwise opened from config. */
  database?: DatabaseHandle;
}

/** The whole application as one Fastify plugin; server.ts and the tests register it. */
const app: FastifyPluginAsync<AppOptions> = async (fastify, opts) => {
  fastify.setErrorHandler(errorHandler);
  // Calls the spec gives without a body (sync-users, follow, unfollow) may still
  // say Content-Type: application/json; an empty body then means no body, while
  // anything else goes through Fastify's own parser (prototype-poisoning safe).
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.trim() === '') return done(null, undefined);
    parseJson(request, text, done);
  });
  fastify.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: 'not_found', message: `No route for ${request.method} ${request.url.split('?')[0]}.` }),
  );

  // The kernel, then one plugin per capability, each naming the plugins it stands on (fastify-plugin's
  // `dependencies`), so one registered out of order or left out stops the start, not a later request.
  await fastify.register(kernelPlugin, { config: opts.config, database: opts.database });
  await fastify.register(securityPlugin);
  // Before every route: it collects them as they are added (onRoute).
  await fastify.register(openapiPlugin);
  await fastify.register(registrationPlugin);
  // Each capability's part in removing or suspending a person (person-steps.ts), over the kernel's database.
  await fastify.register(peoplePlugin, (parent) => ({ personSteps: createPersonSteps(parent.database.sqlite) }));
  await fastify.register(mediaPlugin);
  await fastify.register(postsPlugin);
  await fastify.register(hashtagsPlugin);
  await fastify.register(feedsPlugin);
  await fastify.register(socialPlugin);
  await fastify.register(moderationPlugin);
  await fastify.register(exportPlugin);
  if (opts.config.auth.provider === 'embedded') await fastify.register(idpPlugin);
  // ActivityPub, only with FEDERATION=on: an onRequest hook that hands federation paths to Fedify.
  await fastify.register(federationPlugin);

  // The routes: the few without a token, then /api (api.ts), then the web app.
  await fastify.register(healthRoutes);
  await fastify.register(publicConfigRoute);
  await fastify.register(instanceRoutes);
  await fastify.register(postWriteRoutes);
  await fastify.register(apiRoutes, { prefix: '/api' });
  await fastify.register(webPlugin);
};

export default app;
