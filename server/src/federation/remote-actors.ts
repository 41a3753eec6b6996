import type Database from 'better-sqlite3';
import { hostPort, privateHostLiteral } from './safe-fetch.js';

/** A person on another server as their actor document describes them (federation.ts reads it with Fedify). */
export interface RemoteActorInput {
  /** The actor's id. */
  uri: URL;
  /** Their preferredUsername. */
  name: string;
  inbox: URL;
  sharedInbox: URL | null;
  /** Their profile page on their server. */
  url: URL | null;
  manuallyApprovesFollowers: boolean;
  /** Their picture (the actor's embedded icon's URL), if any. */
  icon?: URL | null;
}

/** Where to deliver to a person on another server (Fedify's Recipient). */
export interface RemoteRecipient {
  userId: number;
  uri: string;
  inbox: string;
  sharedInbox: string | null;
}

/** Why a remote actor was not taken: federation.ts logs it and answers nothing for them. */
export class RemoteActorRefused extends Error {}

/** Names other servers give their people that we show as `name@host`: Mastodon's, Pixelfed's and dotted ones. */
const REMOTE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;

/**
 * Checks a URL another server gave us before we ever fetch or deliver to it: https, or http only
 * on a host:port the operator listed (FEDERATION_ALLOWED_PRIVATE_HOSTS, for tests), and no literal
 * private, loopback or link-local address, in any spelling, unless listed (safe-fetch.ts,
 * privateHostLiteral). A quick refusal only: names are resolved, and every address checked, when
 * the connection is made (safe-fetch.ts), which is what keeps a fetch off our network.
 */
export function reachable(url: URL, allowedPrivateHosts: readonly string[]): boolean {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (allowedPrivateHosts.includes(hostPort(url.hostname, port))) return url.protocol === 'https:' || url.protocol === 'http:';
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '') return false;
  return !privateHostLiteral(url.hostname);
}

/**
 * People of other servers as users rows (users.host set, migration 0031) with their actor in
 * remote_actors: follows, follow requests and notifications then work for them as for anyone,
 * and every place that lists or counts this server's own people leaves them out by host.
 */
export function createRemoteActors(
  sqlite: Database.Database,
  allowedPrivateHosts: readonly string[],
  /** Whether a host's server is limited (domain-blocks.ts): users.limited of a new row. */
  limitedHost: (host: string) => boolean = () => false,
) {
  const byUri = sqlite.prepare<[string], { userId: number; username: string }>(
    'SELECT r.user_id AS userId, u.username FROM remote_actors r JOIN users u ON u.id = r.user_id WHERE r.uri = ?',
  );
  const nameHolder = sqlite.prepare<[string], { id: number; host: string | null }>(
    'SELECT id, host FROM users WHERE username = ? COLLATE NOCASE',
  );
  const renameGone = sqlite.prepare<[number]>(`UPDATE users SET username = username || '~' || id WHERE id = ?`);
  const insertUser = sqlite.prepare<[string, string, number, string, number], { id: number }>(
    'INSERT INTO users (sub, username, created_at, host, limited) VALUES (?, ?, ?, ?, ?) RETURNING id',
  );
  const renameUser = sqlite.prepare<[string, number]>('UPDATE users SET username = ? WHERE id = ?');
  // A removed person keeps their row (deleted_at) and, unlike a local account's, its sub: freed
  // here when their actor is looked up again (a suspension lifted, say), as a local sub is freed
  // on removal (people/users-repository.ts, releaseSub).
  const releaseRemovedSub = sqlite.prepare<[string]>(
    `UPDATE users SET sub = '~removed-' || id || ':' || sub WHERE sub = ? AND deleted_at IS NOT NULL`,
  );
  const upsertActor = sqlite.prepare<[number, string, string, string | null, string | null, number, number]>(`
    INSERT INTO remote_actors (user_id, uri, inbox, shared_inbox, url, manually_approves_followers, fetched_at)
    VALUES (?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (user_id) DO UPDATE SET inbox = excluded.inbox, shared_inbox = excluded.shared_inbox, url = excluded.url,
      manually_approves_followers = excluded.manually_approves_followers, fetched_at = excluded.fetched_at`);
  const recipient = sqlite.prepare<[number], RemoteRecipient>(
    'SELECT user_id AS userId, uri, inbox, shared_inbox AS sharedInbox FROM remote_actors WHERE user_id = ?',
  );
  const uriOf = sqlite.prepare<[number], string>('SELECT uri FROM remote_actors WHERE user_id = ?').pluck();
  const hasPicture = sqlite.prepare<[number], number>('SELECT profile_picture_key IS NOT NULL FROM users WHERE id = ?').pluck();
  /** Who takes a picture in (remote-posts.ts), and whose are being taken now (one at a time each). */
  let pictureKeeper: ((userId: number, icon: URL) => Promise<void>) | null = null;
  const takingPicture = new Set<number>();

  /** The name of a taken `name@host` freed for a newer actor of that host (the old one was removed there and made again). */
  const take = (username: string): void => {
    const holder = nameHolder.get(username);
    if (!holder) return;
    if (holder.host === null) throw new RemoteActorRefused(`the name ${username} belongs to a person of this server`);
    renameGone.run(holder.id);
  };

  const upsert = sqlite.transaction((actor: RemoteActorInput): number => {
    const uri = actor.uri.href;
    if (!REMOTE_NAME.test(actor.name)) throw new RemoteActorRefused(`an unusable name: ${JSON.stringify(actor.name.slice(0, 80))}`);
    for (const url of [actor.uri, actor.inbox, actor.sharedInbox]) {
      if (url && !reachable(url, allowedPrivateHosts)) throw new RemoteActorRefused(`an address we do not reach: ${url.href}`);
    }
    // Their inboxes are on their own server: an actor cannot have us deliver to a third one.
    if (actor.inbox.host !== actor.uri.host) throw new RemoteActorRefused(`an inbox on another host: ${actor.inbox.href}`);
    const host = actor.uri.host.toLowerCase();
    const username = `${actor.name}@${host}`;
    const at = Date.now();
    let userId = byUri.get(uri)?.userId;
    if (userId === undefined) {
      take(username);
      releaseRemovedSub.run(`~remote:${uri}`);
      userId = insertUser.get(`~remote:${uri}`, username, at, host, limitedHost(host) ? 1 : 0)!.id;
    } else if (byUri.get(uri)!.username !== username) {
      take(username);
      renameUser.run(username, userId);
    }
    upsertActor.run(userId, uri, actor.inbox.href, actor.sharedInbox?.href ?? null, actor.url?.href ?? null, actor.manuallyApprovesFollowers ? 1 : 0, at);
    return userId;
  });

  return {
    /** The users row for this actor, made or brought up to date; throws RemoteActorRefused for one we do not take. */
    upsert(actor: RemoteActorInput): number {
      const userId = upsert.immediate(actor);
      // A picture once, when they have none yet: taken in the background, so no page waits for their server.
      const icon = actor.icon;
      if (icon && pictureKeeper && !takingPicture.has(userId) && hasPicture.get(userId) === 0 && reachable(icon, allowedPrivateHosts)) {
        takingPicture.add(userId);
        void pictureKeeper(userId, icon)
          .catch(() => {})
          .finally(() => takingPicture.delete(userId));
      }
      return userId;
    },
    /** Sets who takes a person's picture in (remote-posts.ts). */
    keepPictures(keeper: (userId: number, icon: URL) => Promise<void>): void {
      pictureKeeper = keeper;
    },
    /** The users.id of a known remote actor. */
    idOf: (uri: URL | string): number | undefined => byUri.get(typeof uri === 'string' ? uri : uri.href)?.userId,
    /** Their username (name@host), for the app to open their profile. */
    usernameOf: (uri: URL | string): string | undefined => byUri.get(typeof uri === 'string' ? uri : uri.href)?.username,
    recipient: (userId: number): RemoteRecipient | undefined => recipient.get(userId),
    uriOf: (userId: number): string | undefined => uriOf.get(userId),
  };
}

export type RemoteActors = ReturnType<typeof createRemoteActors>;
