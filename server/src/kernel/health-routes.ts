import type { FastifyPluginAsync } from 'fastify';

/**
 * /healthz: the process answers (liveness). /readyz: the database and storage
 * answer too (readiness; the compose health check). No token needed, so a
 * failure is logged in full but answered only as "unavailable": no paths or
 * host names for anonymous callers.
 */
const healthRoutes: FastifyPluginAsync = async (fastify) => {
  fastify.get('/healthz', { config: { rateLimit: false } }, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return { status: 'ok' };
  });
  fastify.get('/readyz', { config: { rateLimit: false } }, async (request, reply) => {
    const checks: Record<string, 'ok' | 'unavailable'> = { database: 'ok', storage: 'ok' };
    try {
      fastify.database.sqlite.prepare('SELECT 1').get();
    } catch (err) {
      checks.database = 'unavailable';
      request.log.error({ err: (err as Error).message }, 'readiness: database unavailable');
    }
    try {
      await fastify.storage.ping();
    } catch (err) {
      checks.storage = 'unavailable';
      request.log.error({ err: (err as Error).message }, 'readiness: storage unavailable');
    }
    const ready = checks.database === 'ok' && checks.storage === 'ok';
    return reply
      .code(ready ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ status: ready ? 'ok' : 'unavailable', checks });
  });
};

export default healthRoutes;
