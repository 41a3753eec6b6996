import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  AllowListChange,
  DomainAllowChange,
  DomainAllows,
  Done,
  DomainBlockChange,
  DomainBlockImport,
  DomainBlockImported,
  DomainBlocks,
  DomainBlockSaved,
  FederationChange,
  FederationStatus,
  RemoteMediaChange,
  RemoteMediaUse,
  ReportForwarded,
} from '../contract/answers.js';
import { conflict } from '../kernel/errors.js';
import { parseId } from '../kernel/paging.js';
import { ErrorBody, errors, IdParam, writeErrors } from '../kernel/route-schemas.js';
import { createFederationOverview } from './federation-overview.js';

const iso = (ms: number) => new Date(ms).toISOString();
/** Failed attempts the page lists, newest first. */
const FAILURES_SHOWN = 20;
const WEEK_MS = 7 * 24 * 3_600_000;
/** The export, a file to save: OpenAPI's binary string (sent as it is, never serialized). */
const CsvBody = Type.Unsafe<string>({
  type: 'string',
  format: 'binary',
  description: "Mastodon's domain block CSV: #domain,#severity,#reject_media,#reject_reports,#public_comment,#obfuscate.",
});

/**
 * Federation on the operator page (issue 49, item 6), under /api/admin behind the scope's one
 * operator check (api.ts): the switch, the servers known here, the queue and its failures. It
 * answers while federation is off too: the switch is here, and what the tables hold stays.
 */
const federationAdminRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { federationSwitch } = fastify;
  const overview = createFederationOverview(fastify.database.sqlite);
  const handleHost = new URL(fastify.config.publicUrl).host;

  const status = () => {
    const { servers, totals } = overview.servers();
    const queue = federationSwitch.deliveries.queue();
    return {
      ...federationSwitch.state(),
      handleHost,
      servers,
      totals,
      queue: { waiting: queue.waiting, servers: queue.servers.slice(0, 50).map((s) => ({ ...s, nextAttemptAt: iso(s.nextAttemptAt) })) },
      failures: federationSwitch.deliveries.recent(FAILURES_SHOWN).map((f) => ({
        host: f.host,
        activity: f.activityType,
        status: f.status,
        error: f.error,
        attempt: f.attempt + 1,
        gaveUp: f.gaveUp === 1,
        created_at: iso(f.createdAt),
      })),
      gaveUpLastWeek: federationSwitch.deliveries.gaveUpSince(WEEK_MS),
    };
  };

  fastify.get('/federation', { schema: { response: { 200: FederationStatus, ...errors, 403: ErrorBody } } }, async () => status());

  fastify.put(
    '/federation',
    { schema: { body: FederationChange, response: { 200: FederationStatus, ...writeErrors, 403: ErrorBody, 409: ErrorBody } } },
    async (request) => {
      await federationSwitch.set(request.body.enabled, { id: request.user.id, username: request.user.username });
      return status();
    },
  );

  // Authorized fetch (fetch-access.ts): { enabled } as the switch above takes it.
  fastify.put(
    '/federation/authorized-fetch',
    { schema: { body: FederationChange, response: { 200: FederationStatus, ...writeErrors, 403: ErrorBody } } },
    async (request) => {
      federationSwitch.setAuthorizedFetch(request.body.enabled, { id: request.user.id, username: request.user.username });
      return status();
    },
  );

  // Remote media's cap and retention, and what it takes now (issue 50, item 5; remote-media.ts).
  fastify.get('/federation/media', { schema: { response: { 200: RemoteMediaUse, ...errors, 403: ErrorBody } } }, async () => fastify.remoteMedia.use());
  fastify.put(
    '/federation/media',
    { schema: { body: RemoteMediaChange, response: { 200: RemoteMediaUse, ...writeErrors, 403: ErrorBody } } },
    async (request) => fastify.remoteMedia.setSettings(request.body, { id: request.user.id, username: request.user.username }),
  );

  // Blocks of other servers (issue 50, item 1; docs/api.md, "Blocking servers").
  const { blocks } = federationSwitch;
  const operator = (request: { user: { id: number; username: string } }) => ({ id: request.user.id, username: request.user.username });
  fastify.get('/federation/blocks', { schema: { response: { 200: DomainBlocks, ...errors, 403: ErrorBody } } }, async () => ({
    blocks: blocks.list().map(({ createdAt: _createdAt, ...b }) => b),
  }));

  fastify.put(
    '/federation/blocks',
    { schema: { body: DomainBlockChange, response: { 200: DomainBlockSaved, ...writeErrors, 403: ErrorBody } } },
    async (request) => federationSwitch.block(request.body, operator(request)),
  );

  fastify.delete(
    '/federation/blocks/:domain',
    { schema: { params: Type.Object({ domain: Type.String({ maxLength: 300 }) }), response: { 200: Done, ...writeErrors, 403: ErrorBody } } },
    async (request) => {
      blocks.lift(request.params.domain, operator(request));
      return { done: true as const };
    },
  );

  // Mastodon's CSV, to share a list with other operators or bring theirs in.
  fastify.get(
    '/federation/blocks/export',
    { schema: { response: { 200: { description: "Mastodon's CSV of the block list.", content: { 'text/csv': { schema: CsvBody } } }, ...errors, 403: ErrorBody } } },
    async (_request, reply) =>
    reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="domain_blocks.csv"')
      .header('cache-control', 'no-store')
      .send(blocks.export()),
  );

  fastify.post(
    '/federation/blocks/import',
    { bodyLimit: 2_500_000, schema: { body: DomainBlockImport, response: { 200: DomainBlockImported, ...writeErrors, 403: ErrorBody } } },
    async (request) => federationSwitch.importBlocks(request.body.csv, operator(request)),
  );

  // Allow-list mode (issue 50, item 1): when on, only the servers listed here federate, in and out.
  const allowList = () => {
    const { enabled, allows } = blocks.allowList();
    return { enabled, allows: allows.map(({ domain, comment }) => ({ domain, comment })) };
  };
  fastify.get('/federation/allows', { schema: { response: { 200: DomainAllows, ...errors, 403: ErrorBody } } }, async () => allowList());

  fastify.put(
    '/federation/allows',
    { schema: { body: DomainAllowChange, response: { 200: DomainAllows, ...writeErrors, 403: ErrorBody } } },
    async (request) => {
      blocks.allow(request.body.domain, request.body.comment, operator(request));
      return allowList();
    },
  );

  fastify.delete(
    '/federation/allows/:domain',
    { schema: { params: Type.Object({ domain: Type.String({ maxLength: 300 }) }), response: { 200: DomainAllows, ...writeErrors, 403: ErrorBody } } },
    async (request) => {
      blocks.disallow(request.params.domain, operator(request));
      return allowList();
    },
  );

  fastify.put(
    '/federation/allow-list',
    { schema: { body: AllowListChange, response: { 200: DomainAllows, ...writeErrors, 403: ErrorBody } } },
    async (request) => {
      blocks.setAllowListMode(request.body.enabled, operator(request));
      return allowList();
    },
  );

  // An open report of another server's post or comment forwarded there, as Mastodon's "Forward to
  // <host>" (issue 50, item 1; flags.ts): a Flag by this server, with the operator's words and
  // never the reporters'. Once per item while its reports are open; logged.
  fastify.post(
    '/reports/:kind/:itemId/forward',
    {
      schema: {
        params: Type.Object({ kind: Type.Union([Type.Literal('post'), Type.Literal('comment')]), itemId: IdParam }),
        body: Type.Object({ comment: Type.String({ maxLength: 5000 }) }, { additionalProperties: false }),
        response: { 200: ReportForwarded, ...writeErrors, 403: ErrorBody, 409: ErrorBody },
      },
    },
    async (request) => {
      const itemId = parseId(request.params.itemId, 'itemId');
      const running = fastify.federation;
      if (!running) throw conflict('Federation is off: nothing can be sent to another server.');
      const { host } = await running.forwardReport(operator(request), request.params.kind, itemId, request.body.comment);
      return { forwardedTo: host };
    },
  );
};

export default federationAdminRoutes;
