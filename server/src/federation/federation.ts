import { webcrypto } from 'node:crypto';
import {
  createFederation,
  exportJwk,
  generateCryptoKeyPair,
  importJwk,
  type Context,
  type Federation,
  type KvStore,
  type MessageQueue,
  type NodeInfo,
} from '@fedify/fedify';
import { Application, Endpoints, Flag, Image, Like, Person, Tombstone } from '@fedify/vocab';
import { Temporal } from '@js-temporal/polyfill';
import { LruMap } from '../kernel/lru.js';
import { thumbKey } from '../kernel/storage/media-keys.js';
import type { FederatedPerson, FederationRepository, KeyAlgorithm, StoredKeyPair } from './federation-repository.js';
import { registerFollowInbox, type FollowActivitiesDeps, type FollowBook } from './follow-activities.js';
import type { MayFetch } from './fetch-access.js';
import type { RemoteActors } from './remote-actors.js';
import type { FederatedPostsRepository } from './federated-posts-repository.js';
import { createOf, registerPostObjects } from './post-activities.js';
import { registerPostInbox, type RemotePostsDeps } from './remote-posts.js';
import { outboxRetryDelayMs, type DeliveryFailures } from './delivery-failures.js';
import { createInteractions, type Interactions, type SocialForFederation } from './interactions.js';
import type { Flags } from './flags.js';

/** Fedify's identifier of the server's own actor (an Application at /actor): people's identifiers are numbers. */
export const INSTANCE_ACTOR = 'instance';

/** Where each thing lives. Actors go by users.id, which never changes and is never reused, not by name. */
export const paths = {
  actor: '/users/{identifier}',
  outbox: '/users/{identifier}/outbox',
  followers: '/users/{identifier}/followers',
  following: '/users/{identifier}/following',
  /** Each person's inbox, and the shared one: Follow, Undo, Accept and Reject are handled (follow-activities.ts). */
  inbox: (identifier: string) => `/users/${identifier}/inbox`,
  inboxTemplate: '/users/{identifier}/inbox',
  sharedInbox: '/inbox',
  instanceActor: '/actor',
  nodeInfo: '/nodeinfo/2.1',
  /** The app's page of a person (the spec's /app/profile/:username): the actor's `url`. */
  profile: (username: string) => `/app/profile/${encodeURIComponent(username)}`,
} as const;

export interface FederationDeps {
  /** The server's public origin (PUBLIC_URL): every id and URL is built on it, whatever Host a request names. */
  origin: string;
  repository: FederationRepository;
  kv: KvStore;
  queue: MessageQueue;
  software: { name: string; version: string };
  /** The instance's current name and whether anyone may join (registration's settings). */
  instance: () => { name: string; openRegistrations: boolean };
  remoteActors: RemoteActors;
  follows: FollowBook;
  posts: FederatedPostsRepository;
  /** Posts of people on other servers (remote-posts.ts). */
  remote: Omit<RemotePostsDeps, 'remoteActors' | 'log' | 'comments'>;
  /** Likes and comments, for those that cross servers (interactions.ts). */
  social: SocialForFederation;
  /**
   * Turns Fedify's own check off (a DNS lookup before each fetch; it would refuse the listed
   * hosts): only when the operator listed hosts on private addresses (FEDERATION_ALLOWED_PRIVATE_HOSTS,
   * for tests). Every fetch Fedify makes runs in a federation scope whose guard checks the address
   * each connection opens to and opens exactly the listed host:ports (safe-fetch.ts, plugin.ts),
   * so the list opens nothing else; without a list both checks run.
   */
  allowPrivateAddress: boolean;
  /** Failed deliveries, for the operator page. */
  failures: DeliveryFailures;
  /** Who may fetch a person's objects: blocks either way, authorized fetch (fetch-access.ts). */
  mayFetch: MayFetch;
  /** A remote person's Block of one of ours, or its Undo (moderation/blocks-repository.ts). */
  blockedFrom: FollowActivitiesDeps['blockedFrom'];
  /** Reports across servers: an incoming Flag is a report from "a person on <host>" (flags.ts). */
  flags: Pick<Flags, 'incoming'>;
  /** The wait before a failed delivery's first retry (FEDERATION_RETRY_FIRST_DELAY_MS). */
  retryFirstDelayMs?: number;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/** Posts in a page of a person's outbox. */
const OUTBOX_PAGE = 20;

/** How long NodeInfo's figures are kept: the comment count scans posts, and crawlers ask often. */
const NODEINFO_TTL_MS = 5 * 60_000;

const ALGORITHMS: KeyAlgorithm[] = ['RSASSA-PKCS1-v1_5', 'Ed25519'];

/**
 * The Federation: our people as ActivityPub actors, the instance actor, WebFinger and NodeInfo
 * (issue 49, items 1 and 6). Fedify answers the protocol; everything it serves is read here from
 * FederationRepository, which reads only what the app already shows anyone on a profile.
 * Anonymous posts appear nowhere: no actor, collection or count includes them.
 */
export function buildFederation(deps: FederationDeps): { federation: Federation<void>; interactions: Interactions } {
  const { repository, origin } = deps;
  const at = (path: string) => new URL(path, origin);
  const federation = createFederation<void>({
    kv: deps.kv,
    queue: deps.queue,
    origin,
    // plugin.ts starts the queue once the server is ready and stops it when it closes.
    manuallyStartQueue: true,
    allowPrivateAddress: deps.allowPrivateAddress,
    // Retries over days, and every failed attempt kept for the operator page (delivery-failures.ts).
    outboxRetryPolicy: ({ attempts }) => {
      const ms = outboxRetryDelayMs(attempts, Math.random, deps.retryFirstDelayMs);
      return ms === null ? null : Temporal.Duration.from({ milliseconds: ms });
    },
    onOutboxError: (error) => deps.failures.record(error),
    userAgent: { software: `${deps.software.name}/${deps.software.version}`, url: at('/') },
  });

  /** A person who may be served, by Fedify identifier (users.id as decimal digits, nothing else). */
  const personOf = (identifier: string): FederatedPerson | undefined =>
    /^[1-9][0-9]{0,14}$/.test(identifier) ? repository.person(Number(identifier)) : undefined;

  const keys = keyPairStore(repository);
  // onOutboxError has already recorded an HTTP 404 or 410 as given up; a delivery the circuit
  // breaker held past its time is dropped here without another error.
  federation.setOutboxPermanentFailureHandler((_ctx, failure) => {
    if (failure.reason === 'circuit-breaker-ttl') deps.failures.record(failure.error, true);
  });

  const actors = federation
    .setActorDispatcher(paths.actor, async (ctx, identifier) => {
      if (identifier === INSTANCE_ACTOR) return instanceActor(ctx);
      const person = personOf(identifier);
      if (!person) {
        // Removed: 410 Gone with a Tombstone, so other servers drop them (Mastodon refetches on a failed signature).
        const removedAt = /^[1-9][0-9]{0,14}$/.test(identifier) ? repository.removedAt(Number(identifier)) : undefined;
        return removedAt === undefined
          ? null
          : new Tombstone({ id: ctx.getActorUri(identifier), deleted: Temporal.Instant.fromEpochMilliseconds(removedAt) });
      }
      const pairs = await ctx.getActorKeyPairs(identifier);
      return new Person({
        id: ctx.getActorUri(identifier),
        preferredUsername: person.username,
        // The app has no display name and no bio: the name is the username, and there is no summary.
        name: person.username,
        url: at(paths.profile(person.username)),
        icon: person.pictureKey ? new Image({ url: at(`/${thumbKey(person.pictureKey)}`), mediaType: 'image/webp' }) : null,
        published: Temporal.Instant.fromEpochMilliseconds(person.createdAt),
        manuallyApprovesFollowers: person.isPrivate === 1,
        inbox: at(paths.inbox(identifier)),
        endpoints: new Endpoints({ sharedInbox: at(paths.sharedInbox) }),
        outbox: ctx.getOutboxUri(identifier),
        followers: ctx.getFollowersUri(identifier),
        following: ctx.getFollowingUri(identifier),
        // HTTP Signatures use the RSA key; Object Integrity Proofs the Ed25519 one (assertionMethods).
        publicKey: pairs[0]?.cryptographicKey ?? null,
        assertionMethods: pairs.map((p) => p.multikey),
      });
    })
    // A removed person keeps the keys they had, to sign the Delete of their actor; none are made for them.
    .setKeyPairsDispatcher(async (_ctx, identifier) =>
      identifier === INSTANCE_ACTOR || personOf(identifier) || repository.keyPairs(identifier).length > 0 ? keys.of(identifier) : [],
    )
    // acct:name@host: the name in any case, as the app's own search finds it.
    .mapHandle((_ctx, username) => {
      const id = repository.personIdByName(username);
      return id === undefined ? null : String(id);
    })
    // WebFinger also finds a person by their profile page's URL (what someone copies from the app).
    .mapAlias((_ctx, resource) => {
      const profile = /^\/app\/profile\/([^/]+)$/.exec(resource.pathname);
      if (resource.origin !== origin || !profile) return null;
      const id = repository.personIdByName(decodeURIComponent(profile[1]!));
      return id === undefined ? null : { identifier: String(id) };
    });
  actors.mapActorAlias(paths.instanceActor, INSTANCE_ACTOR);

  /** The server itself, which signs the fetches no person makes (keys, remote actors, objects). */
  async function instanceActor(ctx: Context<void>) {
    const pairs = await ctx.getActorKeyPairs(INSTANCE_ACTOR);
    return new Application({
      id: ctx.getActorUri(INSTANCE_ACTOR),
      // As Mastodon's instance actor: the host as its name, followed by nobody.
      preferredUsername: new URL(origin).hostname,
      name: deps.instance().name,
      url: at('/'),
      manuallyApprovesFollowers: true,
      inbox: at(paths.sharedInbox),
      endpoints: new Endpoints({ sharedInbox: at(paths.sharedInbox) }),
      publicKey: pairs[0]?.cryptographicKey ?? null,
      assertionMethods: pairs.map((p) => p.multikey),
    });
  }

  // The outbox lists a public account's named posts as their Create activities, newest first, in
  // pages (a private account's posts are for its followers: an empty list). Followers and
  // following give their counts, which every profile shows, and no items: who follows whom the
  // app shows only to signed-in people.
  federation
    .setOutboxDispatcher(paths.outbox, (ctx, identifier, cursor) => {
      const person = personOf(identifier);
      if (!person || cursor === null) return null;
      if (person.isPrivate === 1) return { items: [], nextCursor: null };
      const at = /^([0-9]{1,15})\.([0-9]{1,15})$/.exec(cursor);
      const before = at ? { at: Number(at[1]), id: Number(at[2]) } : { at: Number.MAX_SAFE_INTEGER, id: 0 };
      const page = deps.posts.outboxPage(person.id, before, OUTBOX_PAGE);
      const items = page.flatMap(({ id }) => {
        const post = deps.posts.post(id);
        return post && post.shareable === 1 ? [createOf(ctx, post, deps.posts, origin)] : [];
      });
      const last = page.at(-1);
      return { items, nextCursor: page.length === OUTBOX_PAGE && last ? `${last.createdAt}.${last.id}` : null };
    })
    .setFirstCursor(() => 'newest')
    .setCounter((_ctx, identifier) => personOf(identifier)?.publicPostCount ?? null)
    .authorize(deps.mayFetch);
  federation
    .setFollowersDispatcher(paths.followers, (_ctx, identifier) => (personOf(identifier) ? { items: [] } : null))
    .setCounter((_ctx, identifier) => personOf(identifier)?.followerCount ?? null)
    .authorize(deps.mayFetch);
  federation
    .setFollowingDispatcher(paths.following, (_ctx, identifier) => (personOf(identifier) ? { items: [] } : null))
    .setCounter((_ctx, identifier) => personOf(identifier)?.followingCount ?? null)
    .authorize(deps.mayFetch);

  registerPostObjects(federation, { origin, repo: deps.posts, log: deps.log, mayFetch: deps.mayFetch });
  const interactions = createInteractions(federation, {
    origin,
    remoteActors: deps.remoteActors,
    remotePosts: deps.remote.remotePosts,
    ourPosts: deps.posts,
    social: deps.social,
    log: deps.log,
    mayFetch: deps.mayFetch,
  });
  const listeners = registerFollowInbox(federation, paths.inboxTemplate, paths.sharedInbox, {
    remoteActors: deps.remoteActors,
    follows: deps.follows,
    isPerson: (identifier) => personOf(identifier) !== undefined,
    undoLike: (undo, like) => interactions.incoming.undoLike(undo, like),
    blockedFrom: deps.blockedFrom,
    log: deps.log,
  });
  registerPostInbox(listeners, { ...deps.remote, comments: interactions.incoming, remoteActors: deps.remoteActors, log: deps.log });
  listeners.on(Like, async (ctx, like) => interactions.incoming.like(ctx, like));
  listeners.on(Flag, async (_ctx, flag) => deps.flags.incoming(flag));

  let nodeInfo: { at: number; counts: ReturnType<FederationRepository['nodeCounts']> } | null = null;
  federation.setNodeInfoDispatcher(paths.nodeInfo, (): NodeInfo => {
    const now = Date.now();
    if (!nodeInfo || now - nodeInfo.at > NODEINFO_TTL_MS) nodeInfo = { at: now, counts: repository.nodeCounts() };
    const { users, localPosts, localComments } = nodeInfo.counts;
    const instance = deps.instance();
    return {
      software: { name: deps.software.name, version: deps.software.version },
      protocols: ['activitypub'],
      openRegistrations: instance.openRegistrations,
      // No activeMonth or activeHalfyear: the app records no sign-in times, and counting recent
      // posters would count anonymous posts' authors.
      usage: { users: { total: users }, localPosts, localComments },
      metadata: { nodeName: instance.name },
    };
  });

  return { federation, interactions };
}

/**
 * A new key pair. RSA at 2048 bits, as Mastodon's: Fedify's generateCryptoKeyPair makes 4096-bit
 * ones, which took about 3 s each here (0.2 s for 2048), and a person's first fetch waits for it.
 */
async function makeKeyPair(algorithm: KeyAlgorithm): Promise<webcrypto.CryptoKeyPair> {
  if (algorithm === 'Ed25519') return generateCryptoKeyPair('Ed25519');
  return webcrypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  );
}

/**
 * Each actor's key pairs, made on first use and stored (federation_keys), then kept imported in
 * memory. Web Crypto makes them off the event loop.
 */
function keyPairStore(repository: FederationRepository) {
  const imported = new LruMap<string, Promise<webcrypto.CryptoKeyPair[]>>(1000);
  const load = async (actor: string): Promise<webcrypto.CryptoKeyPair[]> => {
    let stored = repository.keyPairs(actor);
    if (stored.length < ALGORITHMS.length) {
      const made: StoredKeyPair[] = [];
      for (const algorithm of ALGORITHMS) {
        const pair = await makeKeyPair(algorithm);
        made.push({
          algorithm,
          publicKeyJwk: JSON.stringify(await exportJwk(pair.publicKey)),
          privateKeyJwk: JSON.stringify(await exportJwk(pair.privateKey)),
        });
      }
      stored = repository.storeKeyPairs(actor, made);
    }
    return Promise.all(
      stored.map(async (s) => ({
        publicKey: await importJwk(JSON.parse(s.publicKeyJwk) as webcrypto.JsonWebKey, 'public'),
        privateKey: await importJwk(JSON.parse(s.privateKeyJwk) as webcrypto.JsonWebKey, 'private'),
      })),
    );
  };
  return {
    of(actor: string): Promise<webcrypto.CryptoKeyPair[]> {
      let pairs = imported.get(actor);
      if (!pairs) {
        // One making per actor at a time; a failure is not kept, so the next request tries again.
        pairs = load(actor).catch((error: unknown) => {
          imported.delete(actor);
          throw error;
        });
        imported.set(actor, pairs);
      }
      return pairs;
    },
  };
}
