import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CURSOR_PATTERN, OLDEST, parseCursor, parseId } from '../domain/paging.js';
import { cleanText } from '../domain/text.js';
import { badRequest } from '../errors.js';
import type { ApiDeps } from './api.js';
import { Comment, ErrorBody, errors, Id, IdParam } from './api-schemas.js';

export const COMMENT_MAX_LENGTH = 500;

/**
 * The text stored for a comment: line endings unified, control characters
 * other than newline and tab removed, hidden characters stripped and combining
 * marks limited (domain/text.ts), trimmed; 1–500 characters.
 */
export function cleanComment(raw: string): string {
  const text = cleanText(
    raw
      .replace(/\r\n?/g, '\n')
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u2028\u2029]/g, ''),
  ).trim();
  const length = Array.from(text).length;
  if (length === 0) throw badRequest('comment must not be empty.');
  if (length > COMMENT_MAX_LENGTH) throw badRequest(`comment must be at most ${COMMENT_MAX_LENGTH} characters.`);
  return text;
}

/** Comments of a post: list (oldest first), add, delete (only by the commenter). */
const commentRoutes: FastifyPluginAsyncTypebox<ApiDeps> = async (fastify, { comments, writes }) => {
  fastify.get(
    '/comment',
    {
      schema: {
        querystring: Type.Object({
          postId: IdParam,
          limit: Type.Integer({ minimum: 1, maximum: 200, default: 100 }),
          cursor: Type.Optional(Type.String({ pattern: CURSOR_PATTERN })),
        }),
        response: { 200: Type.Array(Comment), ...errors },
      },
    },
    async (request) =>
      comments.list(
        parseId(request.query.postId, 'postId'),
        request.user.id,
        parseCursor(request.query.cursor, OLDEST),
        request.query.limit,
      ),
  );

  fastify.post(
    '/comment',
    {
      schema: {
        body: Type.Object({ postId: Id, comment: Type.String({ maxLength: 5000 }) }, { additionalProperties: false }),
        response: { 201: Comment, ...errors },
      },
    },
    async (request, reply) => {
      const postId = parseId(request.body.postId, 'postId');
      const text = cleanComment(request.body.comment);
      const created = await writes.run(() => comments.add(postId, request.user, text));
      return reply.code(201).send(created);
    },
  );

  fastify.delete(
    '/comment',
    {
      schema: {
        querystring: Type.Object({ commentId: IdParam }),
        response: { 200: Type.Object({ deleted: Type.Literal(true) }), ...errors, 403: ErrorBody },
      },
    },
    async (request) => {
      const commentId = parseId(request.query.commentId, 'commentId');
      await writes.run(() => comments.delete(commentId, request.user.id));
      return { deleted: true as const };
    },
  );
};

export default commentRoutes;
