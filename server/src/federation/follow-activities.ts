import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Context, Federation, InboxContext, InboxListenerSetters } from '@fedify/fedify';
import { Accept, Block, Follow, isActor, Like, Reject, Undo, type Actor, type Recipient } from '@fedify/vocab';
import type { BlockFederation, FederatedBlock, FederatedFollow, IncomingFollow } from '../social/follows-repository.js';
import { reachable, RemoteActorRefused, type RemoteActorInput, type RemoteActors } from './remote-actors.js';
import { hostPort, publicAddress } from './safe-fetch.js';

/** What the follows repository does for a follow that crosses servers (social/follows-repository.ts). */
export interface FollowBook {
  followIn(remoteId: number, localId: number, activityUri: string): IncomingFollow;
  undoIn(remoteId: number, localId: number): boolean;
  acceptedOut(localId: number, remoteId: number): boolean;
  rejectedOut(localId: number, remoteId: number): boolean;
}

export interface FollowActivitiesDeps {
  remoteActors: RemoteActors;
  follows: FollowBook;
  /** Whether a Fedify identifier is one of our people (not the instance actor, not removed or suspended). */
  isPerson(identifier: string): boolean;
  /** An Undo of a Like (interactions.ts): one Undo listener serves both. */
  undoLike(undo: Undo, like: Like): void;
  /** A remote person's Block of one of ours, or its Undo (moderation/blocks-repository.ts): the follows it ended, to tell. */
  blockedFrom(remoteId: number, localId: number, block: boolean): BlockFederation;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/** Ours are `<origin>/users/<follower>#follows/<followee>/<ms>` (follows-repository.ts): the two ids in them. */
const OUR_FOLLOW = /^\/users\/([1-9][0-9]{0,14})$/;
const OUR_FOLLOW_FRAGMENT = /^#follows\/([1-9][0-9]{0,14})\/[0-9]+$/;

/** Refuses every fetch: an actor's icon is taken only as its document embeds it (as Mastodon's and Pixelfed's do). */
const noFetch = () => Promise.reject(new Error('not fetched'));

/** What we keep of a remote actor: the parts its document must have for us to follow or be followed by them. */
export async function actorInput(actor: Actor): Promise<RemoteActorInput | null> {
  const name = actor.preferredUsername?.toString();
  if (!actor.id || !actor.inboxId || !name) return null;
  const image = await actor.getIcon({ documentLoader: noFetch, suppressError: true }).catch(() => null);
  const icon = image?.url instanceof URL ? image.url : (image?.url?.href ?? null);
  return {
    icon,
    uri: actor.id,
    name,
    inbox: actor.inboxId,
    sharedInbox: actor.endpoints?.sharedInbox ?? null,
    url: actor.url instanceof URL ? actor.url : (actor.url?.href ?? null),
    manuallyApprovesFollowers: actor.manuallyApprovesFollowers === true,
  };
}

/**
 * Follows across servers (issue 49, items 2 and 3): the inbox listeners for Follow, Undo of a
 * Follow, Accept and Reject, and what we send. Fedify has verified each activity's signature and
 * that its signer is its actor before a listener runs, and runs listeners from the queue, off the
 * request path. A listener that finds nothing to do returns quietly: the sender gets its 202 either
 * way, and an error here would only make it retry.
 */
export function registerFollowInbox(
  federation: Federation<void>,
  inboxPath: `${string}{identifier}${string}`,
  sharedInboxPath: string,
  deps: FollowActivitiesDeps,
): InboxListenerSetters<void> {
  const { remoteActors, follows, log } = deps;

  /** The remote actor who sent `activity`, as a users row; null for one we do not take. */
  const senderOf = async (ctx: InboxContext<void>, activity: Follow | Undo | Accept | Reject | Block): Promise<{ id: number; actor: Actor } | null> => {
    const actor = await activity.getActor({ documentLoader: ctx.documentLoader, contextLoader: ctx.contextLoader });
    const input = actor && isActor(actor) ? await actorInput(actor) : null;
    if (!actor || !input || ctx.parseUri(input.uri) !== null) return null;
    try {
      return { id: remoteActors.upsert(input), actor };
    } catch (err) {
      if (err instanceof RemoteActorRefused) {
        log.info({ actor: input.uri.href, reason: err.message }, 'federation: an activity from an actor we do not take');
        return null;
      }
      throw err;
    }
  };

  /** Our person a Follow names, by their actor's id; null for anyone else (the instance actor, someone gone). */
  const ourPerson = (ctx: Context<void>, uri: URL | null): number | null => {
    const parsed = uri ? ctx.parseUri(uri) : null;
    if (parsed?.type !== 'actor' || !deps.isPerson(parsed.identifier)) return null;
    return Number(parsed.identifier);
  };

  /** Our Follow an Accept or a Reject answers: its follower (ours) and followee (theirs), from its id. */
  const ourFollow = (ctx: Context<void>, id: URL | null): { followerId: number; followeeId: number } | null => {
    if (!id || id.origin !== ctx.origin) return null;
    const follower = OUR_FOLLOW.exec(id.pathname)?.[1];
    const followee = OUR_FOLLOW_FRAGMENT.exec(id.hash)?.[1];
    return follower && followee ? { followerId: Number(follower), followeeId: Number(followee) } : null;
  };

  const listeners = federation.setInboxListeners(inboxPath, sharedInboxPath);
  listeners
    .on(Follow, async (ctx, follow) => {
      const localId = ourPerson(ctx, follow.objectId);
      if (!follow.id || localId === null) return;
      const sender = await senderOf(ctx, follow);
      if (!sender) return;
      const outcome = follows.followIn(sender.id, localId, follow.id.href);
      if (outcome === 'requested') return;
      const identifier = String(localId);
      const answer = { id: new URL(`${ctx.getActorUri(identifier).href}#${outcome}/${Date.now()}`), actor: ctx.getActorUri(identifier), object: follow };
      await ctx.sendActivity({ identifier }, sender.actor, outcome === 'accepted' ? new Accept(answer) : new Reject(answer));
    })
    // Mastodon's Block: they stop seeing each other here too, and the follows between them end,
    // each told back as Mastodon tells it (an Undo of ours, a Reject of theirs).
    .on(Block, async (ctx, block) => {
      const localId = ourPerson(ctx, block.objectId);
      if (localId === null) return;
      const sender = await senderOf(ctx, block);
      if (!sender) return;
      await tell(ctx, deps.blockedFrom(sender.id, localId, true));
    })
    .on(Undo, async (ctx, undo) => {
      const object = await undo.getObject({ documentLoader: ctx.documentLoader, contextLoader: ctx.contextLoader });
      if (object instanceof Like) return deps.undoLike(undo, object);
      if (object instanceof Block) {
        if (object.actorId?.href !== undo.actorId?.href) return;
        const localId = ourPerson(ctx, object.objectId);
        const remoteId = undo.actorId ? remoteActors.idOf(undo.actorId) : undefined;
        if (localId !== null && remoteId !== undefined) deps.blockedFrom(remoteId, localId, false);
        return;
      }
      if (!(object instanceof Follow) || object.actorId?.href !== undo.actorId?.href) return;
      const localId = ourPerson(ctx, object.objectId);
      const remoteId = undo.actorId ? remoteActors.idOf(undo.actorId) : undefined;
      if (localId === null || remoteId === undefined) return;
      follows.undoIn(remoteId, localId);
    })
    .on(Accept, async (ctx, accept) => answered(ctx, accept, 'accept'))
    .on(Reject, async (ctx, reject) => answered(ctx, reject, 'reject'))
    .onError((_ctx, error) => {
      log.warn({ err: error }, 'federation: an incoming activity failed');
    });

  return listeners;

  /** What a block of theirs ended here, told to their server (their follows' Reject, our Undo). */
  async function tell(ctx: Context<void>, federate: BlockFederation): Promise<void> {
    for (const f of federate) if ('activityUri' in f) await sendFollowActivity(ctx, remoteActors, f);
  }

  /** Their answer to one of our Follows, from the person it asked (the answer's signer is its actor). */
  function answered(ctx: InboxContext<void>, activity: Accept | Reject, act: 'accept' | 'reject'): void {
    const ours = ourFollow(ctx, activity.objectId);
    const remoteId = activity.actorId ? remoteActors.idOf(activity.actorId) : undefined;
    if (!ours || remoteId === undefined || ours.followeeId !== remoteId) return;
    if (act === 'accept') follows.acceptedOut(ours.followerId, remoteId);
    else follows.rejectedOut(ours.followerId, remoteId);
  }
}

/**
 * Tells the other server of a follow that crosses servers, once the write is committed: our
 * Follow, its Undo (with the Follow embedded, as Mastodon expects), or our Accept or Reject of
 * theirs. Fedify signs and enqueues it (federation_queue), and the queue delivers and retries.
 */
export async function sendFollowActivity(ctx: Context<void>, remoteActors: RemoteActors, f: FederatedFollow): Promise<void> {
  const ours = f.act === 'follow' || f.act === 'undo' ? f.followerId : f.followeeId;
  const theirs = f.act === 'follow' || f.act === 'undo' ? f.followeeId : f.followerId;
  const them = remoteActors.recipient(theirs);
  if (!them) return;
  const identifier = String(ours);
  const me = ctx.getActorUri(identifier);
  const recipient: Recipient = { id: new URL(them.uri), inboxId: new URL(them.inbox), endpoints: null };
  const followActivity =
    f.act === 'follow' || f.act === 'undo'
      ? new Follow({ id: new URL(f.activityUri), actor: me, object: new URL(them.uri) })
      : new Follow({ id: new URL(f.activityUri), actor: new URL(them.uri), object: me });
  const at = Date.now();
  const activity =
    f.act === 'follow'
      ? followActivity
      : f.act === 'undo'
        ? new Undo({ id: new URL(`${me.href}#undo/${theirs}/${at}`), actor: me, object: followActivity })
        : new (f.act === 'accept' ? Accept : Reject)({ id: new URL(`${me.href}#${f.act === 'accept' ? 'accepted' : 'refused'}/${at}`), actor: me, object: followActivity });
  await ctx.sendActivity({ identifier }, recipient, activity);
}

/**
 * Tells another server that one of our people blocked one of theirs, or no longer does: Mastodon's
 * `Block` (which its server takes as "hide us from each other"), or its `Undo` with the Block
 * embedded. The Block's id is made from the block row (its time), so its Undo names the same one.
 */
export async function sendBlockActivity(ctx: Context<void>, remoteActors: RemoteActors, b: FederatedBlock): Promise<void> {
  const them = remoteActors.recipient(b.blockedId);
  if (!them) return;
  const identifier = String(b.blockerId);
  const me = ctx.getActorUri(identifier);
  const recipient: Recipient = { id: new URL(them.uri), inboxId: new URL(them.inbox), endpoints: null };
  const block = new Block({ id: new URL(`${me.href}#blocks/${b.blockedId}/${b.at}`), actor: me, object: new URL(them.uri) });
  const activity = b.act === 'block' ? block : new Undo({ id: new URL(`${me.href}#blocks/${b.blockedId}/${b.at}/undo`), actor: me, object: block });
  await ctx.sendActivity({ identifier }, recipient, activity);
}

/** `@name@host` (or `name@host`, `acct:name@host`) and `https://host/...`: what search resolves on other servers. */
const HANDLE = /^(?:acct:)?@?([A-Za-z0-9_][A-Za-z0-9_.-]{0,63})@([A-Za-z0-9.-]+(?::[0-9]{1,5})?)$/;

/** A search term naming someone on another server, as the URL its host is checked by; null for a local search. */
export function remoteQuery(term: string): { query: string; host: URL } | null {
  const handle = HANDLE.exec(term);
  if (handle) {
    try {
      return { query: `@${handle[1]}@${handle[2]}`, host: new URL(`https://${handle[2]}/`) };
    } catch {
      return null;
    }
  }
  if (!/^https?:\/\//i.test(term)) return null;
  try {
    const url = new URL(term);
    return { query: url.href, host: url };
  } catch {
    return null;
  }
}

/** How long a search waits for another server: a dead one must not hold the search screen. */
const LOOKUP_TIMEOUT_MS = 8_000;

/**
 * Whether a lookup may ask `url`'s host: reachable (remote-actors.ts), and either a listed
 * host:port or a name whose every address is public. An early answer for the search screen
 * only: the connection itself is checked again on the address it opens to (safe-fetch.ts), so a
 * name that resolves otherwise a moment later (rebinding) still reaches nothing private. Fedify's
 * own check is off (plugin.ts): that guard replaces it, listed hosts included.
 */
export async function lookupAllowed(
  url: URL,
  allowedPrivateHosts: readonly string[],
  resolveName: (hostname: string) => Promise<{ address: string; family: number }[]> = (hostname) => lookup(hostname, { all: true, verbatim: true }),
): Promise<boolean> {
  if (!reachable(url, allowedPrivateHosts)) return false;
  const hostname = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (allowedPrivateHosts.includes(hostPort(hostname, port))) return true;
  if (isIP(hostname.replace(/^\[|\]$/g, '')) !== 0) return true; // a literal: reachable judged it
  try {
    const addresses = await resolveName(hostname);
    return addresses.length > 0 && addresses.every((a) => publicAddress(a.address));
  } catch {
    return false;
  }
}

/**
 * Finds a person on another server by handle (WebFinger, over https) or by their actor's or
 * profile's URL, signed by our instance actor (servers with authorized fetch ask for it), and
 * keeps them as a users row: their `name@host`, or null when nothing usable is found there.
 * Every host it would ask, the handle's and those of the documents it is sent to (WebFinger's
 * `self` link, the actor), must pass lookupAllowed first.
 */
export async function lookupRemotePerson(
  ctx: Context<void>,
  remoteActors: RemoteActors,
  term: { query: string; host: URL },
  instanceActor: string,
  allowedPrivateHosts: readonly string[],
): Promise<string | null> {
  if (!(await lookupAllowed(term.host, allowedPrivateHosts))) return null;
  const signed = await ctx.getDocumentLoader({ identifier: instanceActor });
  const documentLoader: typeof signed = async (url, options) => {
    if (!(await lookupAllowed(new URL(url), allowedPrivateHosts))) throw new Error(`a lookup may not fetch ${url}`);
    return signed(url, options);
  };
  let object: unknown;
  try {
    object = await ctx.lookupObject(term.query, { documentLoader, signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS) });
  } catch {
    return null;
  }
  if (!isActor(object)) return null;
  const input = await actorInput(object);
  if (!input || ctx.parseUri(input.uri) !== null) return null;
  try {
    remoteActors.upsert(input);
  } catch (err) {
    if (err instanceof RemoteActorRefused) return null;
    throw err;
  }
  return remoteActors.usernameOf(input.uri) ?? null;
}
