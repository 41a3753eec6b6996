import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CreatedPost, Deleted } from '../contract/answers.js';
import { IdParam } from '../contract/api-shapes.js';
import { ErrorBody } from '../kernel/errors.js';
import { ALBUM_MAX_PHOTOS } from '../kernel/limits.js';

/**
 * The error answers of create-post and delete-post, all `{ error, message }` (kernel/errors.ts): 4xx
 * the client's (401, 403 incl. a suspended account, 404, 409, 413, 415, 422, 429 past the write
 * budget); 5xx ours (503 busy with Retry-After from create-post, 500 anything else).
 */
const apiErrors = { '4xx': ErrorBody, '5xx': ErrorBody } as const;

/**
 * Making a post of uploads (POST /api/create-post) and deleting one (DELETE /api/post; its
 * edits, PATCH, are post-edits-routes.ts). Registered by app.ts beside media's routes, outside
 * api.ts's scope, each with its own `authenticate`: their answers are sent as they are, never
 * gzip-compressed. They share the API's per-user write budget (kernel/security.ts).
 */
const postWriteRoutes: FastifyPluginAsync = async (instance) => {
  const fastify = instance.withTypeProvider<TypeBoxTypeProvider>();
  const service = fastify.postWrites;

  fastify.post(
    '/api/create-post',
    {
      onRequest: fastify.authenticate,
      schema: {
        body: Type.Object(
          {
            /** One photo (the spec's call); or `photos` for an album, never both. */
            s3Key: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            /**
             * An album: 1 to ALBUM_MAX_PHOTOS (kernel/limits.ts) uploads in the order shown, each with
             * its own description. The schema lets a few more through so the answer says the limit
             * in words (post-writes-service.ts) rather than as a schema error.
             */
            photos: Type.Optional(
              Type.Array(
                Type.Object(
                  {
                    s3Key: Type.String({ minLength: 1, maxLength: 200 }),
                    altText: Type.Optional(Type.String({ maxLength: 20_000 })),
                  },
                  { additionalProperties: false },
                ),
                { maxItems: 50, description: `1 to ${ALBUM_MAX_PHOTOS} photos, in order; more are refused with 400.` },
              ),
            ),
            caption: Type.Optional(Type.String()),
            /** The photo described for people who cannot see it (ALT_TEXT_MAX_LENGTH, checked after cleaning). */
            altText: Type.Optional(Type.String({ maxLength: 20_000 })),
            isAnonymous: Type.Optional(Type.Boolean()),
            isProfilePicture: Type.Optional(Type.Boolean()),
            /** Marked sensitive, with an optional warning of CONTENT_WARNING_MAX_LENGTH characters (docs/api.md, "Content warnings"). */
            sensitive: Type.Optional(Type.Boolean()),
            contentWarning: Type.Optional(Type.String({ maxLength: 20_000 })),
          },
          { additionalProperties: false },
        ),
        response: {
          // A post as every feed shows it to its author, or a new profile picture's address.
          201: CreatedPost,
          ...apiErrors,
        },
      },
    },
    async (request, reply) => {
      const created = await service.createPost(request.user, request.body);
      // A post comes as the page writer's JSON text (posts/page-json.ts), sent as it is.
      if ('json' in created) return (reply as FastifyReply).code(201).type('application/json; charset=utf-8').send(created.json);
      return reply.code(201).send(created);
    },
  );

  fastify.delete(
    '/api/post',
    {
      onRequest: fastify.authenticate,
      schema: {
        querystring: Type.Object({ postId: IdParam }),
        response: { 200: Deleted, ...apiErrors },
      },
    },
    async (request) => {
      return service.deletePost(request.user, Number(request.query.postId));
    },
  );
};

export default postWriteRoutes;
