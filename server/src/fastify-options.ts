import type { FastifyServerOptions } from 'fastify';
import type { Config } from './config.js';

/** Drops query strings that carry capabilities (upload signatures) from logged URLs. */
function safeUrl(url: string): string {
  return url.replace(/([?&](?:sig|signature|X-Amz-Signature|access_token|token)=)[^&]*/gi, '$1[redacted]');
}

/** Options for the Fastify instance, shared by server.ts, tests and scripts. */
export function fastifyOptions(config: Config, overrides: Partial<FastifyServerOptions> = {}): FastifyServerOptions {
  return {
    logger: {
      level: config.logLevel,
      // Never log tokens: no headers are logged, and capability query strings are masked.
      redact: ['req.headers.authorization', 'req.headers.cookie'],
      serializers: {
        req: (req) => ({ method: req.method, url: safeUrl(req.url), remoteAddress: req.ip }),
      },
    },
    trustProxy: config.trustProxy,
    bodyLimit: 64 * 1024,
    routerOptions: { maxParamLength: 200 },
    requestTimeout: 120_000,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: false } },
    ...overrides,
  };
}
