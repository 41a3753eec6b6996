import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParam, PostPhoto, SensitivePhotos } from '../contract/api-shapes.js';
import { parseId } from '../kernel/paging.js';
import { errors, writeErrors } from '../kernel/route-schemas.js';

/** "Show photo" and "Always show sensitive photos" (docs/api.md, "Content warnings"). */
const contentWarningRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { contentWarnings, writes } = fastify;

  fastify.get(
    '/post-photo',
    { schema: { querystring: Type.Object({ postId: IdParam }), response: { 200: PostPhoto, ...errors } } },
    async (request) => contentWarnings.photo(parseId(request.query.postId, 'postId'), request.user.id),
  );

  fastify.get('/account/sensitive-photos', { schema: { response: { 200: SensitivePhotos, ...errors } } }, async (request) =>
    contentWarnings.alwaysShows(request.user.id),
  );

  fastify.put(
    '/account/sensitive-photos',
    {
      schema: {
        body: Type.Object({ alwaysShow: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: SensitivePhotos, ...writeErrors },
      },
    },
    async (request) => writes.run(() => contentWarnings.setAlwaysShows(request.user.id, request.body.alwaysShow)),
  );
};

export default contentWarningRoutes;
