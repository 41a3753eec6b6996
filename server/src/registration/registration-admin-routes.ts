import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Instance } from '../contract/api-shapes.js';
import { Done, InstanceChange, JoinRequests } from '../contract/answers.js';
import { ErrorBody, errors, UsernameParams, writeErrors } from '../kernel/route-schemas.js';
import { operatorNames } from './instance-routes.js';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The operator's side of who may join and the server's own page, under /api/admin, behind the
 * scope's one operator check (api.ts): everyone else gets 403, whatever body they send.
 */
const registrationAdminRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { instanceSettings, joinRequests } = fastify;

  fastify.put('/instance', { schema: { body: InstanceChange, response: { 200: Instance, ...writeErrors, 403: ErrorBody } } }, async (request) => {
    const { rules, ...rest } = request.body;
    const saved = instanceSettings.update(
      { ...rest, ...(rules === undefined ? {} : { rules: rules.split('\n') }) },
      { id: request.user.id, username: request.user.username },
    );
    return { ...saved, operators: operatorNames(fastify) };
  });

  fastify.get(
    '/join-requests',
    { schema: { response: { 200: JoinRequests, ...errors, 403: ErrorBody } } },
    async () => ({ requests: joinRequests.list().map((r) => ({ username: r.username, reason: r.reason, created_at: iso(r.createdAt) })) }),
  );

  for (const action of ['approve', 'reject'] as const) {
    fastify.post(
      `/join-requests/:username/${action}`,
      { schema: { params: UsernameParams, response: { 200: Done, ...writeErrors, 403: ErrorBody } } },
      async (request) => {
        joinRequests[action]({ id: request.user.id, username: request.user.username }, request.params.username.trim());
        return { done: true as const };
      },
    );
  }
};

export default registrationAdminRoutes;
