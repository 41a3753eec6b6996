import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import fp from 'fastify-plugin';

const originOf = (url: string) => {
  try {
    return url ? new URL(url).origin : null;
  } catch {
    return null;
  }
};

/**
 * Browser-facing protections. The token lives in sessionStorage, so the
 * Content-Security-Policy allows no inline script and no foreign script at all;
 * images and uploads only go to our own origin and the configured storage.
 */
export default fp(
  async (fastify) => {
    const { config } = fastify;
    const extraConnect = [
      config.storage.driver === 's3' ? originOf(config.storage.s3.publicEndpoint) : null,
      originOf(config.auth.userInfoUrl),
      originOf(config.web.apiBaseUrl),
      originOf(config.web.secondApiBaseUrl),
    ].filter((o): o is string => o !== null && o !== originOf(config.publicUrl));

    await fastify.register(helmet, {
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'"],
          styleSrc: ["'self'"],
          imgSrc: ["'self'", 'data:', 'blob:'],
          fontSrc: ["'self'"],
          connectSrc: ["'self'", ...new Set(extraConnect)],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          baseUri: ["'none'"],
          objectSrc: ["'none'"],
          manifestSrc: ["'self'"],
        },
      },
      // Media is fetched cross-origin by nobody but our own pages.
      crossOriginResourcePolicy: { policy: 'same-origin' },
      referrerPolicy: { policy: 'no-referrer' },
      strictTransportSecurity: config.publicUrl.startsWith('https://'),
    });

    const allowed = new Set([originOf(config.publicUrl), ...config.corsOrigins.map(originOf)].filter(Boolean));
    await fastify.register(cors, {
      origin: (origin, cb) => cb(null, origin === undefined || allowed.has(origin)),
      credentials: true,
      methods: ['GET', 'POST', 'PUT', 'DELETE'],
      allowedHeaders: ['Authorization', 'Content-Type'],
      maxAge: 600,
    });

    // Limits are opted into per route (config.rateLimit); see routes and idp.
    await fastify.register(rateLimit, {
      global: false,
      errorResponseBuilder: (_request, context) => ({
        statusCode: context.statusCode,
        error: 'rate_limited',
        message: `Too many requests: try again in ${Math.ceil(context.ttl / 1000)} s.`,
      }),
    });
  },
  { name: 'security', dependencies: ['db'] },
);
