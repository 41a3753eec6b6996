import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parseId } from '../kernel/paging.js';
import { ErrorBody, errors, Id, IdParam, LikeState, writeErrors } from '../kernel/route-schemas.js';

const PostIdQuery = Type.Object({ postId: IdParam });
/** Of like and unlike: 409 for a like made twice or one never made. */
const responses = { ...writeErrors, 409: ErrorBody };

/** Likes of a post: read, like (once), unlike. */
const likeRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { likes, writes } = fastify;
  fastify.get('/like', { schema: { querystring: PostIdQuery, response: { 200: LikeState, ...errors } } }, async (request) =>
    likes.get(parseId(request.query.postId, 'postId'), request.user.id),
  );

  fastify.post(
    '/like',
    {
      schema: {
        body: Type.Object({ postId: Id }, { additionalProperties: false }),
        response: { 201: LikeState, ...responses },
      },
    },
    async (request, reply) => {
      const postId = parseId(request.body.postId, 'postId');
      const state = await writes.run(() => likes.like(postId, request.user.id));
      return reply.code(201).send(state);
    },
  );

  fastify.delete(
    '/like',
    { schema: { querystring: PostIdQuery, response: { 200: LikeState, ...responses } } },
    async (request) => {
      const postId = parseId(request.query.postId, 'postId');
      return writes.run(() => likes.unlike(postId, request.user.id));
    },
  );
};

export default likeRoutes;
