import fp from 'fastify-plugin';

/** Paths whose answers belong to the signed-in caller (the API and the provider's userInfo). */
const PRIVATE = /^\/(api\/|oauth2\/userInfo(?:[/?]|$))/;

/**
 * Answers that carry a person's data (their profile, e-mail, feed, likes) are
 * never kept by a browser's or a shared proxy's cache: a shared computer must
 * not show them to the next person. Set before the route runs, so errors
 * (401, 429) carry it too. They also differ by token, hence Vary.
 */
export default fp(
  async (fastify) => {
    fastify.addHook('onRequest', async (request, reply) => {
      if (!PRIVATE.test(request.url)) return;
      reply.header('cache-control', 'no-store');
      // Kept beside what CORS may have put there (Origin).
      const vary = reply.getHeader('vary');
      reply.header('vary', vary ? `${String(vary)}, Authorization` : 'Authorization');
    });
  },
  { name: 'private-answers' },
);
