import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Me, ReportReason, ReportReceipt } from '../contract/api-shapes.js';
import { Blocked, Blocks, Notices } from '../contract/answers.js';
import { REPORT_RECEIVED } from './moderation-repository.js';
import type { BlockFederation } from '../social/follows-repository.js';
import { parseId } from '../kernel/paging.js';
import { cleanText } from '../kernel/text.js';
import { pictureUrl } from '../kernel/views.js';
import { badRequest, notFound } from '../kernel/errors.js';
import { NOTE_MAX_LENGTH } from '../kernel/limits.js';
import { ErrorBody, errors, Id, IdParam, UsernameParams, writeErrors } from '../kernel/route-schemas.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** A note or reason as stored: cleaned like every text (kernel/text.ts), at most NOTE_MAX_LENGTH. */
export function cleanNote(raw: string | undefined, what: string, required = false): string {
  const text = cleanText(raw ?? '');
  if (required && text === '') throw badRequest(`${what} must not be empty: the person concerned sees it.`);
  if (Array.from(text).length > NOTE_MAX_LENGTH) throw badRequest(`${what} must be at most ${NOTE_MAX_LENGTH} characters.`);
  return text;
}

/** Who the caller is to this server, reports, blocking, and the notices of what operators removed. */
const moderationRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { blocks, moderation, writes } = fastify;
  // A block of someone on another server is told to it once committed (Block, Undo, and the
  // follows it ended: federation/plugin.ts); nothing is sent while federation is off.
  const told = async (federate: BlockFederation): Promise<void> => {
    if (federate.length > 0) await fastify.federation?.deliver(federate);
  };

  fastify.get('/me', { config: { allowSuspended: true }, schema: { response: { 200: Me, ...errors } } }, async (request) => {
    const suspension = request.user.suspendedAt === null ? undefined : moderation.suspensionOf(request.user.id);
    return {
      username: request.user.username,
      isOperator: fastify.isOperator(request),
      suspension: suspension ? { reason: suspension.reason, created_at: iso(suspension.createdAt) } : null,
    };
  });

  fastify.get(
    '/account/notices',
    { config: { allowSuspended: true }, schema: { response: { 200: Notices, ...errors } } },
    async (request) => ({
      notices: moderation.notices(request.user.id).map((n) => ({ action: n.action, excerpt: n.excerpt, reason: n.reason, created_at: iso(n.createdAt) })),
    }),
  );

  fastify.post(
    '/reports',
    {
      schema: {
        body: Type.Object(
          {
            kind: Type.Union([Type.Literal('post'), Type.Literal('comment')]),
            id: Id,
            reason: ReportReason,
            note: Type.Optional(Type.String({ maxLength: 5000 })),
          },
          { additionalProperties: false },
        ),
        response: { 201: ReportReceipt, ...writeErrors, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      const { kind, reason } = request.body;
      const id = parseId(request.body.id, 'id');
      const note = cleanNote(request.body.note, 'note');
      await writes.run(() => moderation.report(request.user.id, kind, id, reason, note));
      return reply.code(201).send({ reported: true as const, message: REPORT_RECEIVED });
    },
  );

  fastify.post(
    '/account/:username/block',
    { schema: { params: UsernameParams, response: { 200: Blocked, ...writeErrors } } },
    async (request) => {
      await told(await writes.run(() => blocks.blockByName(request.user.id, request.params.username.trim())));
      return { blocked: true };
    },
  );

  fastify.delete(
    '/account/:username/block',
    { schema: { params: UsernameParams, response: { 200: Blocked, ...writeErrors } } },
    async (request) => {
      await told(await writes.run(() => blocks.unblockByName(request.user.id, request.params.username.trim())));
      return { blocked: false };
    },
  );

  fastify.post(
    '/posts/:postId/block-author',
    { schema: { params: Type.Object({ postId: IdParam }), response: { 200: Blocked, ...writeErrors } } },
    async (request) => {
      const postId = parseId(request.params.postId, 'postId');
      await told(await writes.run(() => blocks.blockAuthorOf(request.user.id, postId)));
      return { blocked: true };
    },
  );

  fastify.get('/blocks', { schema: { response: { 200: Blocks, ...errors } } }, async (request) => ({
    blocks: blocks.list(request.user.id).map((b) => ({
      blockId: b.blockId,
      username: b.username,
      profilePictureUrl: pictureUrl(b.pictureKey),
      created_at: iso(b.createdAt),
    })),
  }));

  fastify.delete(
    '/blocks/:blockId',
    { schema: { params: Type.Object({ blockId: IdParam }), response: { 200: Blocked, ...writeErrors } } },
    async (request) => {
      const blockId = parseId(request.params.blockId, 'blockId');
      const lifted = await writes.run(() => blocks.unblock(blockId, request.user.id));
      if (!lifted) throw notFound('You have no such block.');
      await told(lifted);
      return { blocked: false };
    },
  );
};

export default moderationRoutes;
