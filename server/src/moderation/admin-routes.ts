import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AdminOverview } from '../contract/api-shapes.js';
import { Done } from '../contract/answers.js';
import type { Operator, ReportReason } from './moderation-repository.js';
import { parseId } from '../kernel/paging.js';
import { mediaUrls } from '../kernel/storage/media-keys.js';
import { ErrorBody, errors, IdParam, UsernameParams, writeErrors } from '../kernel/route-schemas.js';
import { cleanNote } from './moderation-routes.js';
import { cleanWarning } from '../posts/content-warnings-service.js';

const iso = (ms: number) => new Date(ms).toISOString();
/** Every route but the overview is a write. */
const responses = { 200: Done, ...writeErrors, 403: ErrorBody, 409: ErrorBody };
const OptionalReason = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 5000 })) }, { additionalProperties: false });
const RequiredReason = Type.Object({ reason: Type.String({ maxLength: 5000 }) }, { additionalProperties: false });

/**
 * The operator's moderation routes under /api/admin, behind the scope's one operator check
 * (api.ts, fastify.requireOperator of moderation/plugin.ts): anyone else gets 403.
 */
const adminRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { moderation, postWrites, contentWarnings, writes } = fastify;

  const operator = (request: FastifyRequest): Operator => ({ id: request.user.id, username: request.user.username });

  fastify.get('/overview', { schema: { response: { 200: AdminOverview, ...errors, 403: ErrorBody } } }, async () => {
    const { figures, reports, suspended, actions } = moderation.overview();
    return {
      figures,
      reports: reports.map((r) => ({
        kind: r.commentId === null ? ('post' as const) : ('comment' as const),
        itemId: r.commentId ?? r.postId,
        postId: r.postId,
        text: r.text,
        thumbnailUrl: r.commentId === null ? mediaUrls(r.mediaKey).thumbnailUrl : null,
        isAnonymous: r.isAnonymous === 1,
        created_at: iso(r.createdAt),
        author: r.author,
        authorSuspended: r.authorSuspended === 1,
        reporterCount: r.reporterCount,
        reasons: (JSON.parse(r.reasons) as Array<{ reason: ReportReason; note: string; created_at: number; fromHost: string | null }>)
          .sort((a, b) => b.created_at - a.created_at)
          .map((x) => ({ reason: x.reason, note: x.note, created_at: iso(x.created_at), fromHost: x.fromHost })),
        lastReportedAt: iso(r.lastReportedAt),
        editedAt: r.editedAt === null ? null : iso(r.editedAt),
        history: (JSON.parse(r.history) as Array<{ id: number; caption: string; altText: string; photoAlts: string[]; created_at: number }>)
          .sort((a, b) => b.id - a.id)
          .map((v) => ({
            caption: v.caption,
            altText: v.altText,
            // An album's version: every photo's description then, in order (docs/api.md, "Editing a post").
            ...(v.photoAlts.length > 0 && { photos: [v.altText, ...v.photoAlts].map((altText) => ({ altText })) }),
            created_at: iso(v.created_at),
          })),
        albumPhotos: r.albumPhotos
          ? (JSON.parse(r.albumPhotos) as Array<{ mediaKey: string; altText: string }>).map((f) => ({ thumbnailUrl: mediaUrls(f.mediaKey).thumbnailUrl, altText: f.altText }))
          : [],
        // Operators see the photo itself, told it is marked sensitive (docs/api.md, "Content warnings").
        ...(r.commentId === null && r.sensitive === 1 && { sensitive: { warning: r.contentWarning } }),
        authorHost: r.authorHost,
        forwarded: r.forwardedTo === null || r.forwardedAt === null ? null : { host: r.forwardedTo, created_at: iso(r.forwardedAt) },
      })),
      suspended: suspended.map((s) => ({ username: s.username, reason: s.reason, created_at: iso(s.createdAt) })),
      actions: actions.map((a) => ({ ...a, created_at: iso(a.createdAt) })),
      operators:
        fastify.config.auth.provider === 'embedded'
          ? { source: 'accounts' as const, accounts: fastify.operators.list().map((o) => ({ username: o.username, grantedAs: o.reason, since: iso(o.createdAt) })) }
          : { source: 'provider_role' as const, accounts: [] },
    };
  });

  fastify.post(
    '/reports/:kind/:itemId/dismiss',
    {
      schema: {
        params: Type.Object({ kind: Type.Union([Type.Literal('post'), Type.Literal('comment')]), itemId: IdParam }),
        body: Type.Optional(OptionalReason),
        response: responses,
      },
    },
    async (request) => {
      const itemId = parseId(request.params.itemId, 'itemId');
      const reason = cleanNote(request.body?.reason, 'reason');
      await writes.run(() => moderation.dismiss(operator(request), request.params.kind, itemId, reason));
      return { done: true as const };
    },
  );

  fastify.delete(
    '/posts/:postId',
    { schema: { params: Type.Object({ postId: IdParam }), body: RequiredReason, response: responses } },
    async (request) => {
      const postId = parseId(request.params.postId, 'postId');
      const reason = cleanNote(request.body.reason, 'reason', true);
      // One transaction deletes the post (its likes, comments and reports with it) and logs the action; the images go after.
      await postWrites.removePostAsOperator(postId, (post) => moderation.logPostRemoval(operator(request), post, reason));
      return { done: true as const };
    },
  );

  // A reported post marked sensitive: blurred for everyone but its author from now on, logged, and told to the author with the reason.
  fastify.post(
    '/posts/:postId/sensitive',
    {
      schema: {
        params: Type.Object({ postId: IdParam }),
        body: Type.Object({ reason: Type.String({ maxLength: 5000 }), warning: Type.Optional(Type.String({ maxLength: 5000 })) }, { additionalProperties: false }),
        response: responses,
      },
    },
    async (request) => {
      const postId = parseId(request.params.postId, 'postId');
      const reason = cleanNote(request.body.reason, 'reason', true);
      const warning = cleanWarning(request.body.warning ?? '');
      await contentWarnings.markAsOperator(postId, warning, (post) => moderation.logMarkSensitive(operator(request), { id: postId, userId: post.userId, caption: post.caption }, reason));
      return { done: true as const };
    },
  );

  fastify.delete(
    '/comments/:commentId',
    { schema: { params: Type.Object({ commentId: IdParam }), body: RequiredReason, response: responses } },
    async (request) => {
      const commentId = parseId(request.params.commentId, 'commentId');
      const reason = cleanNote(request.body.reason, 'reason', true);
      await writes.run(() => moderation.removeComment(operator(request), commentId, reason));
      return { done: true as const };
    },
  );

  fastify.post(
    '/users/:username/suspend',
    { schema: { params: UsernameParams, body: RequiredReason, response: responses } },
    async (request) => {
      const reason = cleanNote(request.body.reason, 'reason', true);
      await writes.run(() => moderation.suspend(operator(request), request.params.username.trim(), reason));
      return { done: true as const };
    },
  );

  fastify.delete(
    '/users/:username/suspend',
    { schema: { params: UsernameParams, body: Type.Optional(OptionalReason), response: responses } },
    async (request) => {
      const reason = cleanNote(request.body?.reason, 'reason');
      await writes.run(() => moderation.unsuspend(operator(request), request.params.username.trim(), reason));
      return { done: true as const };
    },
  );
};

export default adminRoutes;
