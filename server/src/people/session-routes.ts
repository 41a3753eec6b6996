import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SignedOut } from '../contract/answers.js';
import { writeErrors } from '../kernel/route-schemas.js';

/** Logout: the token that calls this stops working at once, not only when it expires. */
const sessionRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.delete(
    '/session',
    { config: { allowSuspended: true, allowPending: true }, schema: { response: { 200: SignedOut, ...writeErrors } } },
    async (request) => ({ signedOut: fastify.revocations.revoke(request.tokenClaims) }),
  );
};

export default sessionRoutes;
