import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Instance } from '../contract/api-shapes.js';
import { ErrorBody } from '../kernel/route-schemas.js';

/**
 * The operators' usernames, whom "Forgot password?" names when no contact is set: the embedded
 * provider's accounts holding the role (moderation's decoration, read per request); none with an
 * outside provider, whose realm role the server cannot list.
 */
export const operatorNames = (fastify: FastifyInstance): string[] =>
  fastify.config.auth.provider === 'embedded' ? fastify.operators.list().map((o) => o.username) : [];

/**
 * GET /api/instance: the server's name, description, rules and registration mode, without a
 * token (the landing page and sign-up show them before anyone has signed in). Registered
 * outside the /api plugin, whose every route needs a token.
 */
const instanceRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get(
    '/api/instance',
    { schema: { response: { 200: Instance, '4xx': ErrorBody, '5xx': ErrorBody } } },
    async (_request, reply) => {
      // Changes are rare but must show at once (the operator page's save, then the landing page).
      reply.header('cache-control', 'no-cache');
      return { ...fastify.instanceSettings.get(), operators: operatorNames(fastify) };
    },
  );
};

export default instanceRoutes;
