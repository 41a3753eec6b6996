import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Serves the built SPA: hashed assets as immutable, index.html for / and every
 * /app/* route (client-side routing). Without a build, / says how to make one.
 */
export default fp(
  async (fastify) => {
    const dist = fastify.config.web.distDir;
    const index = join(dist, 'index.html');
    if (!existsSync(index)) {
      fastify.log.warn(`web bundle not found at ${dist}: run "npm run build"`);
      const missing = async (_req: unknown, reply: FastifyReply) =>
        reply.code(503).type('text/plain').send('The web app is not built yet: run "npm run build" (npm start does it for you).');
      fastify.get('/', missing);
      fastify.get('/app/*', missing);
      return;
    }
    await fastify.register(fastifyStatic, {
      root: dist,
      index: false,
      wildcard: false,
      setHeaders(res, path) {
        res.header(
          'cache-control',
          path.includes(`${join(dist, 'assets')}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
        );
      },
    });
    const sendIndex = async (_req: unknown, reply: FastifyReply) =>
      reply.header('cache-control', 'no-cache').sendFile('index.html');
    fastify.get('/', sendIndex);
    fastify.get('/app', sendIndex);
    fastify.get('/app/*', sendIndex);
  },
  { name: 'web', dependencies: ['db'] },
);
