import type { FastifyPluginAsync } from 'fastify';

/** /healthz: the process answers. /readyz: the database and storage answer too. */
const healthRoutes: FastifyPluginAsync = async (fastify) => {
  fastify.get('/healthz', { config: { rateLimit: false } }, async () => ({ status: 'ok' }));
  fastify.get('/readyz', { config: { rateLimit: false } }, async (_request, reply) => {
    const checks: Record<string, string> = {};
    try {
      fastify.database.sqlite.prepare('SELECT 1').get();
      checks.database = 'ok';
    } catch (err) {
      checks.database = (err as Error).message;
    }
    try {
      await fastify.storage.ping();
      checks.storage = 'ok';
    } catch (err) {
      checks.storage = (err as Error).message;
    }
    const ready = Object.values(checks).every((v) => v === 'ok');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable', checks });
  });
};

export default healthRoutes;
