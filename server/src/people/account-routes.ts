import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { badRequest, notFound } from '../kernel/errors.js';
import { Privacy } from '../contract/api-shapes.js';
import { Deleted } from '../contract/answers.js';
import { writeErrors } from '../kernel/route-schemas.js';

/** The owner removes their own account; the body names it again so a stray call cannot. */
const accountRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const removal = fastify.accountRemoval;
  fastify.delete(
    '/account',
    {
      schema: {
        body: Type.Object({ confirmUsername: Type.String({ maxLength: 200 }) }, { additionalProperties: false }),
        response: { 200: Deleted, ...writeErrors },
      },
    },
    async (request) => {
      if (request.body.confirmUsername.trim().toLowerCase() !== request.user.username.toLowerCase()) {
        throw badRequest('To delete your account, confirm with your username exactly as it is shown.');
      }
      const removed = await removal.remove(request.user.id);
      if (!removed) throw notFound('Your account does not exist.');
      return { deleted: true as const };
    },
  );

  // Private or public (docs/api.md, "Private accounts"); public again approves the waiting follow requests.
  fastify.put(
    '/account/privacy',
    {
      schema: {
        body: Type.Object({ isPrivate: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: Privacy, ...writeErrors },
      },
    },
    async (request) => {
      const result = await fastify.writes.run(() => fastify.follows.setPrivate(request.user.id, request.body.isPrivate));
      // Requests from other servers' people approved by going public: their servers are told.
      await fastify.federation?.deliver(result.federate);
      return result;
    },
  );
};

export default accountRoutes;
