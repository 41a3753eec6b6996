import type { Federation, KvStore, MessageQueue } from '@fedify/fedify';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { APP_VERSION } from '../kernel/version.js';
import { createFederationRepository } from './federation-repository.js';
import { createSqliteKvStore } from './sqlite-kv-store.js';
import { createSqliteMessageQueue } from './sqlite-message-queue.js';

export interface FederationHandle {
  federation: Federation<void>;
  kv: KvStore;
  queue: MessageQueue;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** ActivityPub (federation.ts); null while FEDERATION is off, when no federation route exists. */
    federation: FederationHandle | null;
  }
}

/**
 * The only paths handed to Fedify: its answers for everything else would be 404s, and a request
 * that is not one of these never pays for building a Request. Inboxes are not among them yet
 * (see below).
 */
const FEDERATION_PATH = /^(?:\/users\/[^/]+(?:\/(?:outbox|followers|following))?|\/actor|\/\.well-known\/(?:webfinger|nodeinfo)|\/nodeinfo\/2\.1)$/;
const PERSON_PATH = /^\/users\/([1-9][0-9]{0,14})$/;

/** Fedify's "not mine": the request goes on to Fastify's routes (and, for these paths, its 404). */
const PASS = new Response(null, { status: 404 });

/**
 * Federation (issue 49, items 1 and 6; docs/self-hosting.md, "Federation"). Off unless the operator
 * sets FEDERATION=on (with an https:// PUBLIC_URL, kernel/config.ts): then nothing here is
 * registered, and every federation path answers the app's 404 as before.
 *
 * On, Fastify hands requests to Fedify from an onRequest hook, before any body is parsed (the
 * pattern of @fedify/fastify, which is not in our registry), so that the inboxes' POSTs, whose
 * signatures cover the raw bytes, can reach Fedify untouched; this slice hands it GETs only.
 * Fedify negotiates: an ActivityPub Accept gets the actor's JSON, while a browser asking for a
 * person's actor URL (text/html) is sent to their page in the app, and anything else it declines
 * falls through to the app.
 *
 * This slice serves; it does not listen. Actors announce their inbox and the shared inbox, but no
 * inbox route is registered until the next slice handles what arrives there, so a POST to one
 * answers 404 rather than a 202 that would silently drop a Follow. The queue (federation_queue)
 * runs from the start so that deliveries have a durable place to wait once there are any.
 */
export default fp(
  async (fastify) => {
    const { config, database } = fastify;
    if (!config.federation.enabled) {
      fastify.decorate('federation', null);
      return;
    }
    // Loaded only when on: importing Fedify and its JSON-LD stack took 1.5-1.9 s and 72 MB here.
    const { buildFederation, paths } = await import('./federation.js');
    const origin = new URL(config.publicUrl).origin;
    const repository = createFederationRepository(database.sqlite);
    const kv = createSqliteKvStore(database.sqlite);
    const queue = createSqliteMessageQueue(database.sqlite, {
      onError: (err) => fastify.log.warn({ err }, 'federation: a queued message failed'),
    });
    const federation = buildFederation({
      origin,
      repository,
      kv,
      queue,
      software: { name: 'shower-beer', version: APP_VERSION },
      instance: () => {
        const settings = fastify.instanceSettings.get();
        return { name: settings.name, openRegistrations: settings.registrationMode === 'open' };
      },
    });
    fastify.decorate('federation', { federation, kv, queue });

    /** A browser opening a person's actor URL: their page in the app. Otherwise on to the app's routes. */
    const browserPage = (path: string): Response => {
      const id = PERSON_PATH.exec(path)?.[1];
      const person = id === undefined ? undefined : repository.person(Number(id));
      return person ? Response.redirect(new URL(paths.profile(person.username), origin).href, 303) : PASS;
    };

    fastify.addHook('onRequest', async (request, reply) => {
      if (request.method !== 'GET') return;
      const path = request.url.split('?')[0]!;
      if (!FEDERATION_PATH.test(path)) return;
      const response = await federation.fetch(toWebRequest(request, origin), {
        contextData: undefined,
        onNotFound: () => PASS,
        onNotAcceptable: () => browserPage(path),
      });
      if (response === PASS) return;
      return reply.send(response);
    });

    // The queue's worker: started once the server is ready, stopped before the database closes.
    const stop = new AbortController();
    fastify.addHook('onReady', async () => {
      federation.startQueue(undefined, { signal: stop.signal }).catch((err: unknown) => {
        if (!stop.signal.aborted) fastify.log.error({ err }, 'federation: the queue stopped');
      });
    });
    fastify.addHook('preClose', async () => stop.abort());
  },
  { name: 'federation', dependencies: ['kernel', 'registration'] },
);

/** The request as Fedify reads it, under the public origin whatever Host it named (a GET: no body). */
function toWebRequest(request: FastifyRequest, origin: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.raw.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  return new Request(new URL(request.url, origin), { method: request.method, headers });
}
