import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CURSOR_PATTERN, OLDEST, parseCursor, parseId } from '../kernel/paging.js';
import { COMMENT_MAX_LENGTH } from '../kernel/limits.js';
import { cleanText } from '../kernel/text.js';
import { badRequest } from '../kernel/errors.js';
import { Comments, Deleted } from '../contract/answers.js';
import { Comment, ErrorBody, errors, Id, IdParam, writeErrors } from '../kernel/route-schemas.js';


/**
 * The text stored for a comment: line endings unified, control characters
 * other than newline and tab removed, hidden characters stripped and combining
 * marks limited (kernel/text.ts), trimmed; 1 to COMMENT_MAX_LENGTH characters.
 */
export function cleanComment(raw: string): string {
  const text = cleanText(raw);
  const length = Array.from(text).length;
  if (length === 0) throw badRequest('comment must not be empty.');
  if (length > COMMENT_MAX_LENGTH) throw badRequest(`comment must be at most ${COMMENT_MAX_LENGTH} characters.`);
  return text;
}

/** Comments of a post: list (oldest first), add, delete (only by the commenter). */
const commentRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { comments, writes } = fastify;
  fastify.get(
    '/comment',
    {
      schema: {
        querystring: Type.Object({
          postId: IdParam,
          limit: Type.Integer({ minimum: 1, maximum: 200, default: 100 }),
          cursor: Type.Optional(Type.String({ pattern: CURSOR_PATTERN })),
        }),
        response: { 200: Comments, ...errors },
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
        response: { 201: Comment, ...writeErrors },
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
        response: { 200: Deleted, ...writeErrors, 403: ErrorBody },
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
