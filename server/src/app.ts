import type { FastifyPluginAsync } from 'fastify';
import type { Config } from './kernel/config.js';
import type { DatabaseHandle } from './kernel/db/client.js';
import { errorHandler } from './kernel/errors.js';
import authPlugin from './people/auth-plugin.js';
import dbPlugin from './kernel/plugin.js';
import openapiPlugin from './kernel/openapi.js';
import repositoriesPlugin from './plugins/repositories.js';
import securityPlugin from './kernel/security.js';
import webPlugin from './web/plugin.js';
import idpPlugin from './idp/plugin.js';
import mediaPlugin from './media/plugin.js';
import apiRoutes from './api.js';
import healthRoutes from './kernel/health-routes.js';
import publicConfigRoute from './web/public-config.js';
import instanceRoutes from './registration/instance-routes.js';

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

  await fastify.register(dbPlugin, { config: opts.config, database: opts.database });
  await fastify.register(securityPlugin);
  await fastify.register(authPlugin);
  // Before every route: it collects them as they are added (onRoute).
  await fastify.register(openapiPlugin);
  await fastify.register(healthRoutes);
  await fastify.register(publicConfigRoute);
  await fastify.register(instanceRoutes);
  if (opts.config.auth.provider === 'embedded') await fastify.register(idpPlugin);
  await fastify.register(repositoriesPlugin);
  await fastify.register(mediaPlugin);
  await fastify.register(apiRoutes, { prefix: '/api' });
  await fastify.register(webPlugin);
};

export default app;
