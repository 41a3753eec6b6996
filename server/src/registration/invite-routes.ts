import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { NewInvite } from '../contract/api-shapes.js';
import { Done, Invites } from '../contract/answers.js';
import { INVITE_MAX_HOURS, INVITE_MAX_USES, type InviteRow } from './invites-repository.js';
import { parseId } from '../kernel/paging.js';
import { forbidden } from '../kernel/errors.js';
import { ErrorBody, errors, IdParam, writeErrors } from '../kernel/route-schemas.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function inviteView(row: InviteRow, now = Date.now()) {
  // A link whose maker can no longer act is refused (invites-repository.ts) and shown withdrawn even
  // before anything wrote its withdrawal (a maker left waiting or turned down: they made none since).
  const withdrawn = row.revokedAt !== null || !row.makerActive;
  const state = withdrawn ? 'revoked' : row.uses >= row.maxUses ? 'used_up' : row.expiresAt <= now ? 'expired' : 'active';
  return {
    id: row.id,
    createdBy: row.createdBy,
    created_at: iso(row.createdAt),
    expires_at: iso(row.expiresAt),
    maxUses: row.maxUses,
    uses: row.uses,
    usesLeft: state === 'active' ? row.maxUses - row.uses : 0,
    state: state as 'active' | 'expired' | 'used_up' | 'revoked',
    withdrawnBecause: withdrawn ? (row.revokedReason ?? ('maker_inactive' as const)) : null,
  };
}

const NewInviteBody = Type.Object(
  {
    expiresInHours: Type.Integer({ minimum: 1, maximum: INVITE_MAX_HOURS }),
    maxUses: Type.Integer({ minimum: 1, maximum: INVITE_MAX_USES }),
  },
  { additionalProperties: false },
);

/**
 * Invite links (docs/registration.md): operators make them always and see everyone's; members
 * make and see their own while the operator page's "Members can invite" is on.
 */
const inviteRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { invites, instanceSettings } = fastify;
  /** Whether the caller may use invites now: an operator, or any member while members may invite. */
  const allowed = (request: FastifyRequest) => {
    const operator = fastify.isOperator(request);
    if (!operator && !instanceSettings.get().membersCanInvite) throw forbidden('Only operators can make invite links on this server.');
    return operator;
  };

  fastify.get('/invites', { schema: { response: { 200: Invites, ...errors } } }, async (request) => {
    const operator = allowed(request);
    const rows = operator ? invites.list() : invites.listBy(request.user.id);
    const now = Date.now();
    return { invites: rows.map((r) => inviteView(r, now)) };
  });

  fastify.post('/invites', { schema: { body: NewInviteBody, response: { 200: NewInvite, ...writeErrors } } }, async (request) => {
    const operator = allowed(request);
    const maker = { id: request.user.id, username: request.user.username };
    const { id, code } = invites.create(maker, request.body.expiresInHours, request.body.maxUses, operator);
    const row = invites.get(id)!;
    return { invite: inviteView(row), code, url: `${fastify.config.publicUrl}/?invite=${code}` };
  });

  fastify.delete(
    '/invites/:inviteId',
    { schema: { params: Type.Object({ inviteId: IdParam }), response: { 200: Done, ...writeErrors, 403: ErrorBody } } },
    async (request) => {
      const operator = allowed(request);
      invites.revoke(parseId(request.params.inviteId, 'inviteId'), { id: request.user.id, username: request.user.username }, operator);
      return { done: true as const };
    },
  );
};

export default inviteRoutes;
