import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ServerMuted, ServerMutes } from '../contract/answers.js';
import { notFound } from '../kernel/errors.js';
import { errors, writeErrors } from '../kernel/route-schemas.js';

const iso = (ms: number) => new Date(ms).toISOString();
/** What a host may be as typed (normalised by the repository: lower case, punycode, no scheme or path). */
const HostText = Type.String({ minLength: 1, maxLength: 300 });

/** The caller's mutes of whole servers (docs/api.md, "Muting a server"): nothing here is sent to any server. */
const serverMuteRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { serverMutes, writes } = fastify;

  fastify.get('/server-mutes', { schema: { response: { 200: ServerMutes, ...errors } } }, async (request) => ({
    mutes: serverMutes.list(request.user.id).map((m) => ({ host: m.host, created_at: iso(m.createdAt) })),
  }));

  fastify.post(
    '/server-mutes',
    {
      schema: {
        body: Type.Object({ host: HostText }, { additionalProperties: false }),
        response: { 200: ServerMuted, ...writeErrors },
      },
    },
    async (request) => ({ host: await writes.run(() => serverMutes.mute(request.user.id, request.body.host)), muted: true }),
  );

  fastify.delete(
    '/server-mutes/:host',
    { schema: { params: Type.Object({ host: HostText }), response: { 200: ServerMuted, ...writeErrors } } },
    async (request) => {
      const host = await writes.run(() => serverMutes.unmute(request.user.id, request.params.host));
      if (host === null) throw notFound('You have not muted this server.');
      return { host, muted: false };
    },
  );
};

export default serverMuteRoutes;
