import type { Federation, KvStore, MessageQueue } from '@fedify/fedify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { conflict } from '../kernel/errors.js';
import type { Operator } from '../kernel/moderation-log.js';
import { APP_VERSION } from '../kernel/version.js';
import type { FederatedBlock, FederatedFollow } from '../social/follows-repository.js';
import { createDeliveryFailures, type DeliveryFailures } from './delivery-failures.js';
import { createFederationRepository } from './federation-repository.js';
import { createFederationSettings } from './federation-settings.js';
import { createFetchAccess, unauthorizedResponse, type MayFetch } from './fetch-access.js';
import { createDomainBlocks, type DomainBlock, type DomainBlockInput, type DomainBlocks } from './domain-blocks.js';
import { checkActivity, sameReading } from './inbox-guard.js';
import { createRateLimit, signerHost, signerKeyId } from './inbox-limits.js';
import { createKeyRefetch } from './key-refetch.js';
import { createRemoteActors, reachable } from './remote-actors.js';
import { createFetchGuard, type FetchGuard } from './safe-fetch.js';
import { createFederatedPostsRepository } from './federated-posts-repository.js';
import { createRemotePostsRepository } from './remote-posts-repository.js';
import { createRemoteMedia, type RemoteMedia } from './remote-media.js';
import { createSqliteKvStore } from './sqlite-kv-store.js';
import { createSqliteMessageQueue } from './sqlite-message-queue.js';

export interface FederationHandle {
  federation: Federation<void>;
  kv: KvStore;
  queue: MessageQueue;
  /** Tells the other servers of follows (and blocks: moderation/blocks-repository.ts) that cross servers, once their write has committed. */
  deliver(follows: FederatedFollow | ReadonlyArray<FederatedFollow | FederatedBlock> | undefined): Promise<void>;
  /**
   * A search term naming someone on another server: their name@host once found and kept, else
   * null. Their recent public posts are then read in the background (backfill.ts).
   */
  lookup(term: string): Promise<string | null>;
  /** Reads a person of another server's recent posts now (tests); how many were kept. */
  backfill(userId: number): Promise<number>;
  /** An operator forwards an item's open reports to its author's server as a Flag (flags.ts); where it went. */
  forwardReport(op: Operator, kind: 'post' | 'comment', itemId: number, comment: string): Promise<{ host: string }>;
}

/** Whether federation is on, and who decided (the operator page, federation/admin-routes.ts). */
export interface FederationState {
  enabled: boolean;
  /** 'environment': FEDERATION=on or off fixes it, and the operator's switch is locked. */
  setBy: 'environment' | 'operator';
  /** Why it cannot be turned on with this PUBLIC_URL ('' when it can). */
  unavailable: string;
  /** Objects served only to signed requests from servers that may federate (fetch-access.ts). */
  authorizedFetch: boolean;
}

export interface FederationSwitch {
  state(): FederationState;
  /** The operator's switch: 409 when the environment fixes it or PUBLIC_URL cannot federate. */
  set(enabled: boolean, op: Operator): Promise<FederationState>;
  /** Authorized fetch, on or off (settable while federation is off too). */
  setAuthorizedFetch(on: boolean, op: Operator): FederationState;
  /** Failed and waiting deliveries (kept while off too: what waits is sent once it is on again). */
  deliveries: DeliveryFailures;
  /** The operator's blocks of other servers (domain-blocks.ts); settable while off too. */
  blocks: DomainBlocks;
  /**
   * Blocks a server (or updates its block); a suspension removes its people kept here and all
   * they left (their follows, likes, comments and posts), as a removed account's are. Answers how
   * many people were removed.
   */
  block(input: DomainBlockInput, op: Operator): Promise<{ block: Omit<DomainBlock, 'createdAt'>; removedPeople: number }>;
  /** Mastodon's CSV, then the same removals for every suspension in it. */
  importBlocks(csv: string, op: Operator): Promise<{ imported: number; skipped: Array<{ line: number; reason: string }>; removedPeople: number }>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** ActivityPub (federation.ts); null while federation is off, when no federation route answers. */
    federation: FederationHandle | null;
    federationSwitch: FederationSwitch;
    /** Remote media's cap and retention (remote-media.ts); there while federation is off too. */
    remoteMedia: RemoteMedia;
  }
}
/**
 * The only paths handed to Fedify: its answers for everything else would be 404s, and a request
 * that is not one of these never pays for building a Request. Inboxes are not among them yet
 * (see below).
 */
const FEDERATION_PATH = /^(?:\/users\/[^/]+(?:\/(?:outbox|followers|following|(?:posts|comments)\/[^/]+))?|\/actor|\/\.well-known\/(?:webfinger|nodeinfo)|\/nodeinfo\/2\.1)$/;
/** The inboxes, which take POSTs only. */
const INBOX_PATH = /^(?:\/users\/[1-9][0-9]{0,14}\/inbox|\/inbox)$/;
/** Inbox POSTs refused (unsigned, badly signed, too large) one address may make before it gets 429s. */
const REFUSED_BURST = 60;
const REFUSED_PER_MINUTE = 30;
/** The most an inbox reads of one activity: Mastodon's own posts stay far below it. */
const INBOX_MAX_BYTES = 256 * 1024;
const PERSON_PATH = /^\/users\/([1-9][0-9]{0,14})$/;
/** A post's object: a deleted one that other servers had answers 410 Gone, as Mastodon's do. */
const POST_OBJECT_PATH = /^\/users\/[1-9][0-9]{0,14}\/posts\/([1-9][0-9]{0,14})$/;
/** A person's page in the app, which other servers may be given instead of the actor's address. */
const PROFILE_PATH = /^\/app\/profile\/([^/]+)$/;
const ACTIVITY_JSON = /application\/(?:activity\+json|ld\+json)/;
/** The codes of the inbox's refusals (kernel/errors.ts names the same). */
const INBOX_ERRORS: Record<number, string> = { 400: 'invalid_request', 401: 'unauthorized', 403: 'forbidden', 404: 'not_found', 410: 'gone' };

/** The largest photo taken from another server, whatever UPLOAD_MAX_BYTES allows (Mastodon's limit for remote images). */
const REMOTE_IMAGE_MAX_BYTES = 16 * 1024 * 1024;

/** How often the post worker looks for events when no write woke it (post-activities.ts). */
const POST_EVENTS_POLL_MS = 1_000;

/** Fedify's "not mine": the request goes on to Fastify's routes (and, for these paths, its 404). */
const PASS = new Response(null, { status: 404 });

/**
 * Federation (issue 49, items 1 and 6; docs/self-hosting.md, "Federation"). Off until the operator
 * turns it on: on the operator page (federation/admin-routes.ts; instance_settings.federation_enabled),
 * or with FEDERATION=on, which fixes it either way (kernel/config.ts). It needs an https:// PUBLIC_URL.
 * While off, every federation path answers the app's 404 as before, and Fedify is not even loaded.
 *
 * On, Fastify hands requests to Fedify from an onRequest hook, before any body is parsed (the
 * pattern of @fedify/fastify, which is not in our registry), so that the inboxes' POSTs, whose
 * signatures cover the raw bytes, reach Fedify untouched. Fedify negotiates: an ActivityPub Accept
 * gets the actor's JSON, while a browser asking for a person's actor URL (text/html) is sent to
 * their page in the app, and anything else it declines falls through to the app.
 *
 * The inboxes (a person's and the shared one) take POSTs: the raw body, at most INBOX_MAX_BYTES,
 * goes to Fedify, which checks the signature, answers 202 and hands the activity to its listener
 * through the queue (federation_queue), off the request path. The same queue delivers what we
 * send, and retries it (delivery-failures.ts). Our posts, likes and comments go out from event
 * tables that triggers fill in the write's own transaction (post-activities.ts, interactions.ts),
 * drained when a write is answered and every POST_EVENTS_POLL_MS.
 *
 * Turning it off stops the workers and the routes; what waits stays in its tables and is sent once
 * it is on again (a post deleted meanwhile still reaches the servers that had it).
 */
export default fp(
  async (fastify) => {
    const { config, database } = fastify;
    const settings = createFederationSettings(database.sqlite);
    const deliveries = createDeliveryFailures(database.sqlite);
    const blocks = createDomainBlocks(database.sqlite);
    const mayFetch = createFetchAccess(database.sqlite, { authorizedFetch: () => settings.authorizedFetch(), refused: (host) => blocks.refused(host) });
    // One fetch guard per server (safe-fetch.ts), made when first needed: by federation turned on,
    // or by a remote photo fetched again on view (which may happen while federation is off).
    let guard: FetchGuard | undefined;
    const ownHost = new URL(config.publicUrl).host;
    const fetchGuard = () =>
      (guard ??= createFetchGuard({
        allowedPrivateHosts: config.federation.allowedPrivateHosts,
        refusedHost: (host) => host !== ownHost && blocks.refused(host),
      }));
    const remoteMedia = createRemoteMediaOf(fastify, blocks, fetchGuard);
    fastify.decorate('remoteMedia', remoteMedia);
    fastify.missingMedia.handler = remoteMedia.missing;
    const remotePeople = database.sqlite.prepare<[], { id: number; host: string }>(
      'SELECT id, host FROM users WHERE host IS NOT NULL AND deleted_at IS NULL',
    );
    /** Removes the people kept here of every suspended server, one account at a time. */
    const removeSuspended = async (): Promise<number> => {
      let removed = 0;
      for (const person of remotePeople.all()) {
        if (!blocks.suspended(person.host)) continue;
        if (await fastify.accountRemoval.remove(person.id)) removed++;
      }
      return removed;
    };
    const { forced, unavailable } = config.federation;
    const state = (): FederationState => ({
      enabled: on,
      setBy: forced === null ? 'operator' : 'environment',
      unavailable,
      authorizedFetch: settings.authorizedFetch(),
    });

    let running: Running | null = null;
    let on = false;
    let ready = false;
    /** One switch at a time: a second click waits for the first to finish. */
    let switching: Promise<unknown> = Promise.resolve();

    const turnOn = async () => {
      // Built once, on the first turn on: importing Fedify and its JSON-LD stack took 1.5-1.9 s and 72 MB here.
      running ??= await start(fastify, deliveries, blocks, mayFetch, remoteMedia, fetchGuard());
      on = true;
      if (ready) running.startWorkers();
    };
    const turnOff = async () => {
      on = false;
      await running?.stopWorkers();
    };

    fastify.decorate('federation', { getter: () => (on ? running!.handle : null) });
    fastify.decorate('federationSwitch', {
      state,
      async set(enabled: boolean, op: Operator): Promise<FederationState> {
        if (forced !== null) {
          throw conflict(`Federation is ${forced} by the server's environment (FEDERATION=${forced}); remove that setting to switch it here.`);
        }
        if (enabled && unavailable !== '') throw conflict(unavailable);
        const run = switching.then(async () => {
          if (enabled === on) return;
          settings.set(enabled, op);
          await (enabled ? turnOn() : turnOff());
        });
        switching = run.catch(() => {});
        await run;
        return state();
      },
      setAuthorizedFetch(on, op) {
        if (on !== settings.authorizedFetch()) settings.setAuthorizedFetch(on, op);
        return state();
      },
      deliveries,
      blocks,
      async block(input, op) {
        const block = blocks.set(input, op);
        return { block, removedPeople: block.severity === 'suspend' ? await removeSuspended() : 0 };
      },
      async importBlocks(csv, op) {
        const result = blocks.import(csv, op);
        return { ...result, removedPeople: await removeSuspended() };
      },
    } satisfies FederationSwitch);

    if (forced === 'on' || (forced === null && unavailable === '' && settings.get())) await turnOn();

    // Registered whether on or off: while off each is one boolean test, and a federation path goes on
    // to the app's routes (its 404).
    fastify.addHook('onRequest', async (request, reply) => {
      if (!on) return;
      return running!.onRequest(request, reply);
    });
    // A write of the app's may have left events (a post, a like, a comment on another server's
    // post): drained as soon as it is answered, not at the next tick. Two indexed reads when none.
    fastify.addHook('onResponse', async (request) => {
      if (!on || request.method === 'GET' || request.method === 'HEAD' || !request.url.startsWith('/api/')) return;
      running!.drain();
    });
    // Remote media past its retention is dropped hourly, while federation is off too (what was kept stays counted).
    let mediaSweep: NodeJS.Timeout | undefined;
    const sweepMedia = () =>
      void remoteMedia.sweep().catch((err: Error) => fastify.log.warn({ err: err.message }, 'remote media: the retention sweep failed'));
    fastify.addHook('onReady', async () => {
      ready = true;
      if (on) running!.startWorkers();
      sweepMedia();
      mediaSweep = setInterval(sweepMedia, MEDIA_SWEEP_MS).unref();
    });
    fastify.addHook('preClose', async () => {
      ready = false;
      clearInterval(mediaSweep);
      await switching;
      await running?.stopWorkers();
    });
    fastify.addHook('onClose', async () => {
      await guard?.close();
    });
  },
  { name: 'federation', dependencies: ['kernel', 'registration', 'people', 'media', 'posts', 'social', 'moderation'] },
);

/** How often remote media past its retention is looked for. */
const MEDIA_SWEEP_MS = 3_600_000;

/**
 * Remote media (remote-media.ts) on this server's storage: a dropped photo is fetched again through
 * the same guarded fetch as the first time (remote-posts.ts, fetchImage; loaded on the first refetch,
 * so that Fedify's vocabulary is not loaded while federation is off), unless its server is now
 * suspended or its media rejected, and made again by the same pipeline, in the image queue.
 */
function createRemoteMediaOf(fastify: FastifyInstance, blocks: DomainBlocks, fetchGuard: () => FetchGuard): RemoteMedia {
  const { config } = fastify;
  const maxBytes = Math.min(config.uploads.maxBytes, REMOTE_IMAGE_MAX_BYTES);
  return createRemoteMedia(fastify.database.sqlite, {
    storage: fastify.storage,
    async fetchOriginal(url) {
      if (blocks.refused(url.host) || blocks.of(url.host)?.rejectMedia) return null;
      const { fetchImage } = await import('./remote-posts.js');
      // In the guard's federation scope: outside one, guardedFetch refuses (safe-fetch.ts).
      return fetchGuard().run(() => fetchImage(url, config.federation.allowedPrivateHosts, maxBytes));
    },
    process: (bytes) => fastify.postWrites.renditionsFromAnotherServer(bytes),
    log: fastify.log,
  });
}

interface Running {
  handle: FederationHandle;
  onRequest(request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
  /** Sends what the event tables hold (posts, likes, comments). */
  drain(): void;
  /** The queue's worker and the events' timer: started once the server is ready and federation on. */
  startWorkers(): void;
  /** Stops them, after sending what the event tables hold; resolves once the queue's listener has ended. */
  stopWorkers(): Promise<void>;
}

/** Builds the federation (Fedify, its listeners and workers) on the server's database and services. */
async function start(
  fastify: FastifyInstance,
  failures: DeliveryFailures,
  blocks: DomainBlocks,
  mayFetch: MayFetch,
  remoteMedia: RemoteMedia,
  guard: FetchGuard,
): Promise<Running> {
  const { config, database } = fastify;
  const [{ buildFederation, paths, INSTANCE_ACTOR }, { lookupRemotePerson, remoteQuery, sendBlockActivity, sendFollowActivity }, { createPostDelivery }, { createBackfill }, { createFlags }] =
    await Promise.all([import('./federation.js'), import('./follow-activities.js'), import('./post-activities.js'), import('./backfill.js'), import('./flags.js')]);
  const origin = new URL(config.publicUrl).origin;
  const { allowedPrivateHosts } = config.federation;
  const rejectsMedia = (host: string) => blocks.of(host)?.rejectMedia === true;
  // A photo of another server: at most the upload limit, and never over Mastodon's 16 MB for remote images.
  const remoteImageMaxBytes = Math.min(config.uploads.maxBytes, REMOTE_IMAGE_MAX_BYTES);
  const repository = createFederationRepository(database.sqlite);
  const remoteActors = createRemoteActors(database.sqlite, allowedPrivateHosts, (host) => blocks.of(host)?.severity === 'limit');
  const posts = createFederatedPostsRepository(database.sqlite);
  const remotePosts = createRemotePostsRepository(database.sqlite);
  const { follows } = fastify;
  follows.setOrigin(origin);
  const flags = createFlags(database.sqlite, {
    origin,
    remoteActors,
    remotePosts,
    ourPosts: posts,
    refused: (host) => blocks.refused(host),
    rejectsReports: (host) => blocks.of(host)?.rejectReports === true,
    instanceActor: INSTANCE_ACTOR,
    log: fastify.log,
  });
  const kv = createSqliteKvStore(database.sqlite);
  const queue = createSqliteMessageQueue(database.sqlite, {
    onError: (err) => fastify.log.warn({ err }, 'federation: a queued message failed'),
    // Nothing goes out to a suspended server (or one off the allow list in allow-list mode), even what was queued before.
    drops: (message) => {
      const inbox = (message as { type?: unknown; inbox?: unknown }).inbox;
      if ((message as { type?: unknown }).type !== 'outbox' || typeof inbox !== 'string') return false;
      try {
        return blocks.refused(new URL(inbox).host);
      } catch {
        return false;
      }
    },
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
      rejectsMedia,
      maxImageBytes: remoteImageMaxBytes,
      remoteMedia,
      removePerson: (userId) => fastify.accountRemoval.remove(userId),
    },
    social: {
      like: (postId, userId) => fastify.likes.like(postId, userId),
      unlike: (postId, userId) => fastify.likes.unlike(postId, userId),
      comment: (postId, user, content) => ({ id: fastify.comments.add(postId, user, content).comment_id }),
      deleteComment: (commentId, userId) => fastify.comments.delete(commentId, userId),
    },
    allowPrivateAddress: allowedPrivateHosts.length > 0,
    failures,
    mayFetch,
    blockedFrom: (remoteId, localId, block) => fastify.blocks.fromAnotherServer(remoteId, localId, block),
    flags,
    retryFirstDelayMs: config.federation.retryFirstDelayMs,
    log: fastify.log,
  });
  const context = () => federation.createContext(new URL(origin), undefined);
  const postDelivery = createPostDelivery(federation, { origin, repo: posts, log: fastify.log });
  const backfill = createBackfill({
    sqlite: database.sqlite,
    kv,
    instanceActor: INSTANCE_ACTOR,
    remotePosts,
    posts: { createFromAnotherServer: (input) => fastify.postWrites.createFromAnotherServer(input) },
    allowedPrivateHosts,
    rejectsMedia,
    maxImageBytes: remoteImageMaxBytes,
    remoteMedia,
    log: fastify.log,
  });

  /** A browser opening a person's actor URL: their page in the app. Otherwise on to the app's routes. */
  const browserPage = (path: string): Response => {
    const id = PERSON_PATH.exec(path)?.[1];
    const person = id === undefined ? undefined : repository.person(Number(id));
    return person ? Response.redirect(new URL(paths.profile(person.username), origin).href, 303) : PASS;
  };

  /** Who made a kept post or comment of another server, by its id: only they may edit or delete it (inbox-guard.ts). */
  const authorOf = (uri: string): string | undefined => {
    const kept = remotePosts.byUri(uri) ?? remotePosts.commentByUri(uri);
    return kept ? remoteActors.uriOf(kept.userId) : undefined;
  };

  const keyRefetch = createKeyRefetch(kv);
  const senders = createRateLimit({ burst: config.federation.inboxPerMinute, perMinute: config.federation.inboxPerMinute });
  const refused = createRateLimit({ burst: REFUSED_BURST, perMinute: REFUSED_PER_MINUTE });

  let stop: AbortController | null = null;
  let queueRun: Promise<void> = Promise.resolve();
  let postTimer: NodeJS.Timeout | undefined;
  const drain = () => {
    void postDelivery.drain();
    void interactions.drain();
  };

  return inScope(guard, {
    handle: {
      federation,
      kv,
      queue,
      async deliver(items) {
        if (items === undefined) return;
        for (const item of Array.isArray(items) ? items : [items as FederatedFollow]) {
          try {
            if (item.act === 'block' || item.act === 'unblock') {
              await sendBlockActivity(context(), remoteActors, item);
              continue;
            }
            await sendFollowActivity(context(), remoteActors, item);
            // Their recent posts, for their profile and, once they accept, the feed.
            if (item.act === 'follow') backfill.followed(context(), item.followeeId);
          } catch (err) {
            // The follow is committed here; its delivery is what failed to be queued (logged, not the caller's error).
            fastify.log.warn({ err, act: item.act }, 'federation: an activity could not be queued');
          }
        }
      },
      async lookup(term) {
        const remote = remoteQuery(term);
        if (!remote || !reachable(remote.host, allowedPrivateHosts) || blocks.refused(remote.host.host)) return null;
        const found = await lookupRemotePerson(context(), remoteActors, remote, INSTANCE_ACTOR, allowedPrivateHosts);
        if (found !== null) backfill.looked(context(), found);
        return found;
      },
      backfill: (userId) => backfill.read(context(), userId),
      forwardReport: (op, kind, itemId, comment) => flags.forward(context(), op, kind, itemId, comment),
    },

    async onRequest(request, reply) {
      const path = request.url.split('?')[0]!;
      if (request.method === 'POST' && INBOX_PATH.test(path)) {
        // One server's volume is its own: its bucket is charged for what it got in, and a sender
        // whose requests are refused (unsigned, forged) is slowed by address (inbox-limits.ts).
        const host = signerHost(request.headers);
        // Suspended, or not on the allow list while allow-list mode is on (domain-blocks.ts).
        if (host !== null && blocks.refused(host)) {
          return reply.code(403).send({ error: 'forbidden', message: 'This server does not take activities from yours.' });
        }
        const limited = host !== null && !senders.allows(host) ? senders.retryAfter(host) : !refused.allows(request.ip) ? refused.retryAfter(request.ip) : 0;
        if (limited > 0) {
          return reply
            .code(429)
            .header('retry-after', String(limited))
            .send({ error: 'rate_limited', message: `Too many activities from this sender; try again in ${limited} s.` });
        }
        const body = await readBody(request);
        if (body === null) {
          refused.take(request.ip);
          return reply.code(413).send({ error: 'payload_too_large', message: `An activity must be at most ${INBOX_MAX_BYTES} bytes.` });
        }
        // What it claims, before Fedify verifies and queues it (inbox-guard.ts): its signer's server
        // is its actor's, and it makes, edits or deletes only what is its actor's.
        const json = parseJson(body);
        const verdict = checkActivity(json, host, { origin, authorOf });
        if (verdict.refusal || (verdict.recheck && !(await sameReading(json, verdict.recheck, context().contextLoader)))) {
          refused.take(request.ip);
          const { status, error, message } = verdict.refusal ?? {
            status: 400,
            error: 'invalid_request',
            message: 'This activity reads otherwise under its own context than ActivityStreams says: it is not taken.',
          };
          return reply.code(status).send({ error, message });
        }
        let response = await federation.fetch(toWebRequest(request, origin, body, verdict.dropHttpSignature), { contextData: undefined });
        // Refused with a key we had cached: the sender may have rotated it. Once more, fetched afresh (key-refetch.ts).
        const keyId = verdict.dropHttpSignature ? null : signerKeyId(request.headers);
        if (response.status === 401 && keyId !== null && (await keyRefetch.forget(keyId))) {
          await response.body?.cancel();
          response = await federation.fetch(toWebRequest(request, origin, body), { contextData: undefined });
        }
        if (response.ok && host !== null) senders.take(host);
        else if (!response.ok) refused.take(request.ip);
        // Fedify's refusals are plain text: answered as every error here is, { error, message }.
        if (response.status >= 400 && response.status < 500 && !ACTIVITY_JSON.test(response.headers.get('content-type') ?? '')) {
          const message = (await response.text()).trim() || 'This activity was refused.';
          return reply.code(response.status).send({ error: INBOX_ERRORS[response.status] ?? 'invalid_request', message });
        }
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
        onUnauthorized: unauthorizedResponse,
      });
      if (response === PASS) return;
      return reply.send(response);
    },

    drain,

    startWorkers() {
      if (stop) return;
      const controller = new AbortController();
      stop = controller;
      queueRun = federation.startQueue(undefined, { signal: controller.signal }).catch((err: unknown) => {
        if (!controller.signal.aborted) fastify.log.error({ err }, 'federation: the queue stopped');
      });
      postTimer = setInterval(drain, POST_EVENTS_POLL_MS).unref();
    },

    async stopWorkers() {
      if (!stop) return;
      clearInterval(postTimer);
      await postDelivery.drain().catch(() => {});
      await interactions.drain().catch(() => {});
      stop.abort();
      stop = null;
      await queueRun;
    },
  });
}

/**
 * Everything federation runs, run in the guard's federation scope, so that every fetch it makes,
 * Fedify's included, goes through the guard (safe-fetch.ts): Fedify's request handling (keys
 * fetched to verify a signature), the queue's worker (deliveries, and the listeners' fetches of
 * actors, objects and photos), lookups, backfill and the event drains. Timers and promises started
 * inside keep the scope.
 */
function inScope(guard: FetchGuard, running: Running): Running {
  const { handle } = running;
  return {
    handle: {
      ...handle,
      deliver: (items) => guard.run(() => handle.deliver(items)),
      lookup: (term) => guard.run(() => handle.lookup(term)),
      backfill: (userId) => guard.run(() => handle.backfill(userId)),
      forwardReport: (op, kind, itemId, comment) => guard.run(() => handle.forwardReport(op, kind, itemId, comment)),
    },
    onRequest: (request, reply) => guard.run(() => running.onRequest(request, reply)),
    drain: () => guard.run(() => running.drain()),
    startWorkers: () => guard.run(() => running.startWorkers()),
    stopWorkers: () => guard.run(() => running.stopWorkers()),
  };
}

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

/** An inbox body's JSON, or undefined when it is not JSON (Fedify answers that 400). */
function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The request as Fedify reads it, under the public origin whatever Host it named, with an inbox
 * POST's body; without its HTTP signature when only the signature in the body may vouch for it.
 */
function toWebRequest(request: FastifyRequest, origin: string, body?: Buffer, dropHttpSignature = false): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.raw.headers)) {
    if (dropHttpSignature && (name === 'signature' || name === 'signature-input')) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  return new Request(new URL(request.url, origin), { method: request.method, headers, body });
}
