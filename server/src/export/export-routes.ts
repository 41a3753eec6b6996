import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import { createExportService } from './export-service.js';
import { notFound } from '../kernel/errors.js';
import { ErrorBody, errors } from '../kernel/route-schemas.js';

/**
 * Exports a person may start per hour. Each reads every row and photo of theirs,
 * so it is the heaviest request there is; a few an hour leave room for a
 * download that broke off to be tried again.
 */
export const EXPORTS_PER_HOUR = 5;

/** The zip, streamed: OpenAPI's binary string. Streams are sent as they are, never serialized. */
const ZipBody = Type.Unsafe<Readable>({ type: 'string', format: 'binary', description: 'A zip: data.json and the photos (docs/api.md, "Your data export").' });

/**
 * `attachment` with the name as it is when it is plain ASCII (anything else, and quotes,
 * as `_`), and whole in RFC 6266's `filename*` (UTF-8, percent-encoded to RFC 8187's
 * attr-chars, which leave out the ' ( ) * that encodeURIComponent keeps).
 */
export function attachment(fileName: string): string {
  const plain = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${plain}"; filename*=UTF-8''${encoded}`;
}

/** "Download my data": the caller's data as a zip (export/export-service.ts). */
const exportRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const exporter = createExportService({ sqlite: fastify.database.sqlite, storage: fastify.storage, log: fastify.log });
  fastify.get(
    '/export',
    {
      config: {
        // Their data is theirs to take, suspended or not.
        allowSuspended: true,
        // The rate-limit plugin of kernel/security.ts, per person: its 429 is the usual JSON error with Retry-After.
        rateLimit: {
          max: EXPORTS_PER_HOUR,
          timeWindow: 3600_000,
          // After authentication (the /api onRequest hook), so the key is the person, not the address.
          hook: 'preHandler',
          keyGenerator: (request) => `user:${request.user.id}`,
        },
      },
      schema: {
        response: {
          200: { description: 'The export, streamed.', content: { 'application/zip': { schema: ZipBody } } },
          ...errors,
          429: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const started = exporter.start(request.user.id);
      if (!started) throw notFound('Your account does not exist.');
      return reply
        .header('content-type', 'application/zip')
        .header('content-disposition', attachment(started.fileName))
        .send(started.stream);
    },
  );
};

export default exportRoutes;
