import type Database from 'better-sqlite3';
import type { RequestContext } from '@fedify/fedify';

export interface FetchAccessDeps {
  /** The operator's authorized fetch (federation-settings.ts): only signed requests are served. */
  authorizedFetch(): boolean;
  /** Whether a host's server may not federate: suspended, or off the list in allow-list mode (domain-blocks.ts). */
  refused(host: string): boolean;
}

const IDENTIFIER = /^[1-9][0-9]{0,14}$/;

/**
 * Who may fetch a person's objects (their posts' Notes, their comments, outbox, followers and
 * following), as Fedify's `.authorize()` asks (federation.ts, post-activities.ts, interactions.ts):
 *
 * - Someone they blocked by name, or who blocked them (a Block from their server), is refused
 *   when the request is signed by that person's key (issue 50, item 2): the signer is verified and
 *   their actor fetched only when the person has a block at all (users.block_count), so everyone
 *   else's fetches cost what they did.
 * - With authorized fetch on (issue 50, item 1; Mastodon's "secure mode"), only signed requests
 *   are served, and none signed by the key of a server that may not federate (suspended, or off the
 *   list in allow-list mode). The actor documents (people's and
 *   the instance actor's) are not asked about: other servers need them to verify our signatures.
 *
 * Refused requests get 401 unsigned and 403 signed (plugin.ts, onUnauthorized).
 */
export function createFetchAccess(sqlite: Database.Database, deps: FetchAccessDeps) {
  const blockCount = sqlite.prepare<[number], number>('SELECT block_count FROM users WHERE id = ?').pluck();
  const blockedEitherWay = sqlite.prepare<{ local: number; uri: string }, number>(`
    SELECT 1 FROM remote_actors r JOIN blocks b
      ON (b.blocker_id = @local AND b.blocked_id = r.user_id) OR (b.blocker_id = r.user_id AND b.blocked_id = @local)
    WHERE r.uri = @uri AND b.post_id IS NULL LIMIT 1`).pluck();

  return async function mayFetch(ctx: RequestContext<void>, identifier: string): Promise<boolean> {
    const strict = deps.authorizedFetch();
    const localId = IDENTIFIER.test(identifier) ? Number(identifier) : null;
    const personal = localId !== null && (blockCount.get(localId) ?? 0) > 0;
    if (!strict && !personal) return true;
    const key = await ctx.getSignedKey();
    if (!key?.id) return !strict;
    if (strict && deps.refused(key.id.host)) return false;
    if (!personal) return true;
    const owner = await ctx.getSignedKeyOwner();
    // A signature whose owner cannot be had counts as none.
    if (!owner?.id) return !strict;
    return blockedEitherWay.get({ local: localId, uri: owner.id.href }) === undefined;
  };
}

export type MayFetch = ReturnType<typeof createFetchAccess>;

/** Fedify's refusal (plugin.ts): 401 asks for a signature; 403 refuses the one given. */
export function unauthorizedResponse(request: Request): Response {
  const signed = request.headers.has('signature') || request.headers.has('signature-input');
  return new Response(
    JSON.stringify(
      signed
        ? { error: 'forbidden', message: 'This server does not serve this to the signer of the request.' }
        : { error: 'unauthorized', message: 'This server serves its objects only to signed requests.' },
    ),
    { status: signed ? 403 : 401, headers: { 'content-type': 'application/json; charset=utf-8', vary: 'Accept, Signature' } },
  );
}
