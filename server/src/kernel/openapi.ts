import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import swagger from '@fastify/swagger';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { findAppRoot } from './config.js';
import { ErrorBody } from './route-schemas.js';

export const OPENAPI_PATH = '/api/openapi.json';

/** The root package.json's version, so the document says which release it describes. */
function appVersion(): string {
  try {
    const { version } = JSON.parse(readFileSync(join(findAppRoot(), 'package.json'), 'utf8')) as { version?: unknown };
    return typeof version === 'string' ? version : '0.1.0';
  } catch {
    return '0.1.0';
  }
}

/**
 * The OpenAPI 3 document of the API, built by @fastify/swagger (dynamic mode)
 * from the schemas the routes validate requests and serialize answers with, so
 * it cannot drift from what the server does. Registered in app.ts before any
 * route: swagger collects routes with an onRoute hook and sees only the routes
 * added after it.
 */
export default fp(
  async (fastify) => {
    await fastify.register(swagger, {
      openapi: {
        info: { title: 'Shower Beer API', version: appVersion() },
        components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
        // Every /api call needs the token, media's too; the one exception below says so itself.
        security: [{ bearer: [] }],
      },
      // The document is the /api surface: hidden by URL rather than with hideUntagged,
      // which would make every route carry a tag and silently drop one that forgot it.
      // Everything else is not the JSON API: the sign-in pages (/oauth2), discovery
      // (/.well-known), /healthz, /readyz, /config.json, /media, the SPA, and the
      // local driver's PUT /uploads/…, whose address is opaque (the presign answer's
      // uploadUrl; with S3 it is not even this server).
      transform: ({ schema, url }) => ({ schema: url.startsWith('/api/') ? schema : { ...schema, hide: true }, url }),
    });

    // Built on first request: by then the server is ready and every route is known.
    let document: string | undefined;
    // Registered here, outside api.ts's scope, so no token is asked for (like /config.json).
    // No type provider: the answer is the document's text, which the schema below only describes.
    fastify.get(
      OPENAPI_PATH,
      {
        schema: {
          summary: 'This document (OpenAPI 3); no token needed',
          security: [],
          response: {
            // Describes the answer only: it is sent as ready JSON text, never through this schema.
            200: Type.Object(
              {
                openapi: Type.String(),
                info: Type.Object({ title: Type.String(), version: Type.String() }),
                paths: Type.Object({}, { additionalProperties: true }),
                components: Type.Object({}, { additionalProperties: true }),
              },
              { additionalProperties: true, description: 'The OpenAPI 3 document of the /api routes.' },
            ),
            '5xx': ErrorBody,
          },
        },
      },
      async (_request, reply) => {
        document ??= JSON.stringify(fastify.swagger());
        // no-cache: a browser may keep it but asks again, so an upgraded server is seen at once.
        return reply.header('cache-control', 'no-cache').type('application/json; charset=utf-8').send(document);
      },
    );
  },
  { name: 'openapi' },
);
