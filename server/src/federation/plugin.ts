import type { Federation, KvStore, MessageQueue } from '@fedify/fedify';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { APP_VERSION } from '../kernel/version.js';
import type { FederatedFollow } from '../social/follows-repository.js';
import { createFederationRepository } from './federation-repository.js';
import { createRemoteActors, reachable } from './remote-actors.js';
import { createFederatedPostsRepository } from './federated-posts-repository.js';
import { createRemotePostsRepository } from './remote-posts-repository.js';
import { createSqliteKvStore } from './sqlite-kv-store.js';
import { createSqliteMessageQueue } from './sqlite-message-queue.js';

export interface FederationHandle {
  federation: Federation<void>;
  kv: KvStore;
  queue: MessageQueue;
  /** Tells the other servers of follows that cross servers, once their write has committed. */
  deliver(follows: FederatedFollow | readonly FederatedFollow[] | undefined): Promise<void>;
  /** A search term naming someone on another server: their name@host once found and kept, else null. */
  lookup(term: string): Promise<string | null>;
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
const FEDERATION_PATH = /^(?:\/users\/[^/]+(?:\/(?:outbox|followers|following|posts\/[^/]+))?|\/actor|\/\.well-known\/(?:webfinger|nodeinfo)|\/nodeinfo\/2\.1)$/;
/** The inboxes, which take POSTs only. */
const INBOX_PATH = /^(?:\/users\/[1-9][0-9]{0,14}\/inbox|\/inbox)$/;
/** The most an inbox reads of one activity: Mastodon's own posts stay far below it. */
const INBOX_MAX_BYTES = 256 * 1024;
const PERSON_PATH = /^\/users\/([1-9][0-9]{0,14})$/;
/** A post's object: a deleted one that other servers had answers 410 Gone, as Mastodon's do. */
const POST_OBJECT_PATH = /^\/users\/[1-9][0-9]{0,14}\/posts\/([1-9][0-9]{0,14})$/;
/** A person's page in the app, which other servers may be given instead of the actor's address. */
const PROFILE_PATH = /^\/app\/profile\/([^/]+)$/;
const ACTIVITY_JSON = /application\/(?:activity\+json|ld\+json)/;

/** How often the post worker looks for events when no write woke it (post-activities.ts). */
const POST_EVENTS_POLL_MS = 1_000;

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
 * The inboxes (a person's and the shared one) take POSTs: the raw body, at most INBOX_MAX_BYTES,
 * goes to Fedify, which checks the signature, answers 202 and hands the activity to its listener
 * (follow-activities.ts) through the queue (federation_queue), off the request path. The same
 * queue delivers what we send, and retries it. Our posts go out from federation_post_events,
 * which triggers on posts fill in the write's own transaction (post-activities.ts); a timer
 * drains it every POST_EVENTS_POLL_MS.
 */
export default fp(
  async (fastify) => {
    const { config, database } = fastify;
    if (!config.federation.enabled) {
      fastify.decorate('federation', null);
      return;
    }
    // Loaded only when on: importing Fedify and its JSON-LD stack took 1.5-1.9 s and 72 MB here.
    const [{ buildFederation, paths, INSTANCE_ACTOR }, { lookupRemotePerson, remoteQuery, sendFollowActivity }, { createPostDelivery }] =
      await Promise.all([import('./federation.js'), import('./follow-activities.js'), import('./post-activities.js')]);
    const origin = new URL(config.publicUrl).origin;
    const { allowedPrivateHosts } = config.federation;
    const repository = createFederationRepository(database.sqlite);
    const remoteActors = createRemoteActors(database.sqlite, allowedPrivateHosts);
    const posts = createFederatedPostsRepository(database.sqlite);
    const remotePosts = createRemotePostsRepository(database.sqlite);
    const { follows } = fastify;
    follows.setOrigin(origin);
    const kv = createSqliteKvStore(database.sqlite);
    const queue = createSqliteMessageQueue(database.sqlite, {
      onError: (err) => fastify.log.warn({ err }, 'federation: a queued message failed'),
    });
    const { federation, interactions } = buildFederation({
      origin,
      repository,
      kv,
      queue,
      software: { name: 'shower-beer', version: APP_VERSION },
      instance: () => {
        const settings = fastify.instanceSettings.get();
        return { name: settings.name, openRegistrations: settings.registrationMode === 'open' };
      },
      remoteActors,
      follows,
      posts,
      remote: {
        remotePosts,
        posts: {
          createFromAnotherServer: (input) => fastify.postWrites.createFromAnotherServer(input),
          removeFromAnotherServer: (postId) => fastify.postWrites.removeFromAnotherServer(postId),
          editFromAnotherServer: (postId, authorId, changes, sensitivity) => fastify.contentWarnings.edit(postId, authorId, changes, sensitivity),
        },
        allowedPrivateHosts,
        maxImageBytes: config.uploads.maxBytes,
      },
      social: {
        like: (postId, userId) => fastify.likes.like(postId, userId),
        unlike: (postId, userId) => fastify.likes.unlike(postId, userId),
        comment: (postId, user, content) => ({ id: fastify.comments.add(postId, user, content).comment_id }),
        deleteComment: (commentId, userId) => fastify.comments.delete(commentId, userId),
      },
      allowPrivateAddress: allowedPrivateHosts.length > 0,
      log: fastify.log,
    });
    const context = () => federation.createContext(new URL(origin), undefined);
    const postDelivery = createPostDelivery(federation, { origin, repo: posts, log: fastify.log });
    fastify.decorate('federation', {
      federation,
      kv,
      queue,
      async deliver(items) {
        if (items === undefined) return;
        for (const item of Array.isArray(items) ? items : [items as FederatedFollow]) {
          try {
            await sendFollowActivity(context(), remoteActors, item);
          } catch (err) {
            // The follow is committed here; its delivery is what failed to be queued (logged, not the caller's error).
            fastify.log.warn({ err, act: item.act }, 'federation: an activity could not be queued');
          }
        }
      },
      async lookup(term) {
        const remote = remoteQuery(term);
        if (!remote || !reachable(remote.host, allowedPrivateHosts)) return null;
        return lookupRemotePerson(context(), remoteActors, remote, INSTANCE_ACTOR, allowedPrivateHosts);
      },
    } satisfies FederationHandle);

    /** A browser opening a person's actor URL: their page in the app. Otherwise on to the app's routes. */
    const browserPage = (path: string): Response => {
      const id = PERSON_PATH.exec(path)?.[1];
      const person = id === undefined ? undefined : repository.person(Number(id));
      return person ? Response.redirect(new URL(paths.profile(person.username), origin).href, 303) : PASS;
    };

    fastify.addHook('onRequest', async (request, reply) => {
      const path = request.url.split('?')[0]!;
      if (request.method === 'POST' && INBOX_PATH.test(path)) {
        const body = await readBody(request);
        if (body === null) {
          return reply.code(413).send({ error: 'payload_too_large', message: `An activity must be at most ${INBOX_MAX_BYTES} bytes.` });
        }
        const response = await federation.fetch(toWebRequest(request, origin, body), { contextData: undefined });
        return reply.send(response);
      }
      if (request.method !== 'GET') return;
      // Someone's page in the app, asked for as ActivityPub (a server given the address someone
      // copied, as Mastodon's profile pages answer): their actor.
      const profile = PROFILE_PATH.exec(path)?.[1];
      if (profile !== undefined && ACTIVITY_JSON.test(request.headers.accept ?? '')) {
        let name: string;
        try {
          name = decodeURIComponent(profile);
        } catch {
          return;
        }
        const id = repository.personIdByName(name);
        if (id !== undefined) return reply.redirect(new URL(paths.actor.replace('{identifier}', String(id)), origin).href, 302);
        return;
      }
      if (!FEDERATION_PATH.test(path)) return;
      const postId = POST_OBJECT_PATH.exec(path)?.[1];
      if (postId !== undefined && posts.federated(Number(postId))?.deletedAt) {
        return reply.code(410).send({ error: 'gone', message: 'This post was deleted.' });
      }
      const response = await federation.fetch(toWebRequest(request, origin), {
        contextData: undefined,
        onNotFound: () => PASS,
        onNotAcceptable: () => browserPage(path),
      });
      if (response === PASS) return;
      return reply.send(response);
    });

    // A write of the app's may have left events (a post, a like, a comment on another server's
    // post): drained as soon as it is answered, not at the next tick. Two indexed reads when none.
    fastify.addHook('onResponse', async (request) => {
      if (request.method === 'GET' || request.method === 'HEAD' || !request.url.startsWith('/api/')) return;
      void postDelivery.drain();
      void interactions.drain();
    });

    // The queue's worker: started once the server is ready, stopped before the database closes.
    const stop = new AbortController();
    let postTimer: NodeJS.Timeout | undefined;
    fastify.addHook('onReady', async () => {
      federation.startQueue(undefined, { signal: stop.signal }).catch((err: unknown) => {
        if (!stop.signal.aborted) fastify.log.error({ err }, 'federation: the queue stopped');
      });
      postTimer = setInterval(() => {
        void postDelivery.drain();
        void interactions.drain();
      }, POST_EVENTS_POLL_MS).unref();
    });
    fastify.addHook('preClose', async () => {
      clearInterval(postTimer);
      await postDelivery.drain().catch(() => {});
      await interactions.drain().catch(() => {});
      stop.abort();
    });
  },
  { name: 'federation', dependencies: ['kernel', 'registration', 'posts', 'social'] },
);

/**
 * An inbox POST's raw bytes, as they came (the signature's digest covers them), or null past
 * INBOX_MAX_BYTES: the rest is not read, and the connection is closed after the 413.
 */
async function readBody(request: FastifyRequest): Promise<Buffer | null> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > INBOX_MAX_BYTES) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw) {
    size += (chunk as Buffer).length;
    if (size > INBOX_MAX_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The request as Fedify reads it, under the public origin whatever Host it named, with an inbox POST's body. */
function toWebRequest(request: FastifyRequest, origin: string, body?: Buffer): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.raw.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  return new Request(new URL(request.url, origin), { method: request.method, headers, body });
}
