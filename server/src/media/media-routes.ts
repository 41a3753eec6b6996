import type { IncomingMessage } from 'node:http';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { PresignedUpload, StorageUse, UploadReceived } from '../contract/answers.js';
import { ErrorBody, notFound } from '../kernel/errors.js';
import type { MediaService } from './media-service.js';
import { displayJpeg } from './images/pipeline.js';
import type { Limiter } from './images/limiter.js';
import { LruMap } from '../kernel/lru.js';
import { PLACEHOLDER_WEBP } from '../kernel/storage/media-keys.js';

export interface MediaRoutesOptions {
  service: MediaService;
  /** Where image work waits its turn (media/plugin.ts): a JPEG is made there too. */
  limiter: Limiter;
  /** A rendition not stored: true when it is being fetched again, and a placeholder is served meanwhile (media/plugin.ts, missingMedia). */
  missing: (mediaKey: string) => boolean;
}

/**
 * The error answers of the /api routes here, all `{ error, message }` (errors.ts): 4xx the
 * client's (401, 403 incl. a suspended account, 404, 409, 413, 415, 422, 429 past the write
 * budget); 5xx ours (503 busy with Retry-After from create-post, 500 anything else).
 */
const apiErrors = { '4xx': ErrorBody, '5xx': ErrorBody } as const;
const MEDIA_PATH = /^([A-Za-z0-9_-]{22})\/(display|medium|thumb|blur)\.webp$/;
/** The display rendition as JPEG, for other servers (images/pipeline.ts, displayJpeg). */
const JPEG_PATH = /^([A-Za-z0-9_-]{22})\/display\.jpg$/;
/** JPEGs made lately: a post delivered to many servers is fetched by each of them within minutes. */
const JPEG_CACHE = 16;

// The writes here share the API's per-user write budget, which kernel/security.ts
// sets on every write route under /api/ (one mechanism, in one place).
const mediaRoutes: FastifyPluginAsync<MediaRoutesOptions> = async (instance, { service, limiter, missing }) => {
  const fastify = instance.withTypeProvider<TypeBoxTypeProvider>();

  fastify.post(
    '/api/presign-upload',
    {
      // onRequest, as every /api route (api.ts): no token, a 401 before any body is read.
      onRequest: fastify.authenticate,
      schema: {
        body: Type.Object(
          {
            fileName: Type.String({ minLength: 1, maxLength: 255 }),
            fileType: Type.String({ minLength: 1, maxLength: 255 }),
            isProfilePicture: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: {
          200: PresignedUpload,
          ...apiErrors,
        },
      },
    },
    async (request) => service.presignUpload(request.user, request.body.fileType, request.body.isProfilePicture === true),
  );

  fastify.get(
    '/api/storage',
    {
      onRequest: fastify.authenticate,
      schema: { response: { 200: StorageUse, ...apiErrors } },
    },
    async (request) => service.storage(request.user),
  );

  // Processed images only; the strict pattern leaves no room for traversal, and raw uploads have no route.
  fastify.get('/media/*', { config: { rateLimit: false } }, async (request, reply) => {
    const path = (request.params as { '*': string })['*'];
    const jpeg = JPEG_PATH.exec(path);
    if (jpeg) {
      const made = await jpegOf(jpeg[1]!);
      if (!made) throw notFound('No such image.');
      return reply
        .header('content-type', 'image/jpeg')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .send(made);
    }
    const match = MEDIA_PATH.exec(path);
    if (!match) throw notFound('No such image.');
    const key = `media/${match[1]}/${match[2]}.webp`;
    const found = await service.openMedia(key);
    if (!found) {
      // A remote photo dropped past the cap or its retention (federation/remote-media.ts): a
      // placeholder, never cached, while it is fetched again; the next view gets the photo.
      if (match[2] !== 'blur' && missing(match[1]!)) {
        return reply.header('content-type', 'image/webp').header('cache-control', 'no-store').send(PLACEHOLDER_WEBP);
      }
      throw notFound('No such image.');
    }
    return reply
      .header('content-type', 'image/webp')
      .header('content-length', found.size)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .send(found.stream);
  });

  const jpegs = new LruMap<string, Promise<Buffer | null>>(JPEG_CACHE);
  /** The JPEG of a photo's display rendition; null when there is no such photo. One making per photo at a time. */
  function jpegOf(mediaKey: string): Promise<Buffer | null> {
    let made = jpegs.get(mediaKey);
    if (!made) {
      made = (async () => {
        const found = await service.openMedia(`media/${mediaKey}/display.webp`);
        if (!found) return null;
        const chunks: Buffer[] = [];
        for await (const chunk of found.stream) chunks.push(chunk as Buffer);
        return limiter.run(() => displayJpeg(Buffer.concat(chunks)));
      })();
      // Kept only when made: a missing photo or a full limiter (503) is asked again next time.
      made.then((b) => b === null && jpegs.delete(mediaKey), () => jpegs.delete(mediaKey));
      jpegs.set(mediaKey, made);
    }
    return made;
  }

  // The local driver's presigned PUT. Its own context, so the body parser that
  // leaves the stream untouched applies to this route only.
  await fastify.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request: FastifyRequest, _payload: IncomingMessage, done: (err: null) => void) =>
      done(null),
    );
    // Rate-limited per client address before the body is read (kernel/security.ts).
    scope.withTypeProvider<TypeBoxTypeProvider>().put(
      '/uploads/:userId/:uploadId',
      {
        schema: {
          params: Type.Object({
            userId: Type.String({ pattern: '^\\d{1,15}$' }),
            uploadId: Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' }),
          }),
          querystring: Type.Object({
            ct: Type.String({ maxLength: 255 }),
            exp: Type.String({ maxLength: 20 }),
            sig: Type.String({ maxLength: 100 }),
          }),
          response: { 200: UploadReceived, '4xx': ErrorBody },
        },
      },
      async (request) =>
        service.receiveUpload({
          key: `uploads/${request.params.userId}/${request.params.uploadId}`,
          ...request.query,
          contentType: request.headers['content-type'],
          contentLength: request.headers['content-length'],
          body: request.raw,
        }),
    );
  });
};

export default mediaRoutes;
