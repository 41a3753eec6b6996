import AjvCompiler from '@fastify/ajv-compiler';
import type { FastifyReply, FastifyServerOptions } from 'fastify';
import type { Config } from './kernel/config.js';

/**
 * Drops query strings that carry capabilities from logged URLs: upload signatures, tokens, and
 * invite codes (an invite link's `/?invite=`, carried through the sign-in pages), each of which
 * lets someone in to whoever reads the log.
 */
function safeUrl(url: string): string {
  return url.replace(/([?&](?:sig|signature|X-Amz-Signature|access_token|token|invite)=)[^&]*/gi, '$1[redacted]');
}

const coercingCompiler = AjvCompiler();
const strictCompiler = AjvCompiler();

type RouteSchema = { httpPart?: string };
type Validate = (route: RouteSchema) => unknown;

// The compiler's typings do not describe the route argument; the runtime contract
// is Fastify's: buildValidator(externalSchemas, options) returns (routeSchema) => validate.
function buildValidator(externalSchemas: unknown, ajvOptions: { customOptions?: object } = {}) {
  const make = (compiler: typeof coercingCompiler, options: object) =>
    (compiler as unknown as (e: unknown, o: object) => Validate)(externalSchemas, options);
  const coercing = make(coercingCompiler, ajvOptions);
  const strict = make(strictCompiler, { ...ajvOptions, customOptions: { ...ajvOptions.customOptions, coerceTypes: false } });
  return (route: RouteSchema) => (route.httpPart === 'body' ? strict(route) : coercing(route));
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
    // Fastify stops the start when one plugin takes over 10 s by default. Starting the read
    // workers and reading the keys has passed that on a busy 2-core runner (the browser suite
    // and tap under load), so a slow machine started slowly instead of not at all.
    pluginTimeout: 60_000,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', allErrors: false } },
    // Query strings and path parameters are text and need coercion ("20" → 20);
    // JSON bodies are typed already, so a wrong type there is refused, not converted.
    schemaController: { compilersFactory: { buildValidator: buildValidator as never } },
    // Errors Fastify raises before routing (e.g. bad percent-encoding) in our shape too.
    frameworkErrors: (err, _request, reply) => {
      const message = err.code === 'FST_ERR_BAD_URL' ? 'The URL is not valid (bad percent-encoding).' : err.message;
      return (reply as FastifyReply).code(400).send({ error: 'invalid_request', message });
    },
    ...overrides,
  };
}
