import type { InboxListenerSetters } from '@fedify/fedify';
import { Create, Delete, Document, isActor, Note, PUBLIC_COLLECTION, Update, type DocumentLoader } from '@fedify/vocab';
import { HttpError } from '../kernel/errors.js';
import { cleanText, clip } from '../kernel/text.js';
import { actorInput } from './follow-activities.js';
import { ALBUM_MAX_PHOTOS, ALT_TEXT_MAX_LENGTH, CAPTION_MAX_LENGTH, CONTENT_WARNING_MAX_LENGTH } from '../kernel/limits.js';

import type { PostFromAnotherServer } from '../posts/post-writes-service.js';
import { reachable, RemoteActorRefused, type RemoteActors } from './remote-actors.js';
import type { RemotePostsRepository } from './remote-posts-repository.js';
import type { RemoteMedia } from './remote-media.js';
import { guardedFetch } from './safe-fetch.js';

/** What federation asks of posts/ for a post of another server (posts/post-writes-service.ts). */
export interface PostsFromAnotherServer {
  createFromAnotherServer(input: PostFromAnotherServer): Promise<number>;
  removeFromAnotherServer(postId: number): Promise<unknown>;
  /**
   * Its author's edit, as an edit of theirs here (posts/content-warnings-service.ts): the caption,
   * each photo's description by place, and the sensitive mark with its warning.
   */
  editFromAnotherServer(
    postId: number,
    authorId: number,
    changes: { caption?: string; altTexts: Map<number, string> },
    sensitivity: { sensitive: boolean; warning: string },
  ): Promise<unknown>;
}

/** What a reply or a Delete that is not about a post becomes (interactions.ts). */
export interface RepliesAndComments {
  reply(create: Create, note: Note): void;
  deleteComment(deletion: Delete): boolean;
}

export interface RemotePostsDeps {
  comments: RepliesAndComments;
  /**
   * Removes a person of another server whose account was removed there, with all they left here
   * (people/account-removal-service.ts, the same steps as a local account's removal).
   */
  removePerson(userId: number): Promise<unknown>;
  remotePosts: RemotePostsRepository;
  remoteActors: RemoteActors;
  posts: PostsFromAnotherServer;
  allowedPrivateHosts: readonly string[];
  /** The operator's "reject media" for a host (domain-blocks.ts): its photos and pictures are never fetched. */
  rejectsMedia: (host: string) => boolean;
  /** The largest photo taken (UPLOAD_MAX_BYTES, as for an upload). */
  maxImageBytes: number;
  /** Their photos and pictures as stored, counted against the remote-media cap (remote-media.ts). */
  remoteMedia: Pick<RemoteMedia, 'record' | 'afterStored'>;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/** How long one photo may take to arrive: a slow server holds one queue worker, not a page. */
const IMAGE_TIMEOUT_MS = 20_000;
/** Redirects followed for a photo, each checked as the first address was. */
const MAX_REDIRECTS = 3;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/**
 * A Note's HTML as the plain text the app shows (it renders text as text, never markup): line
 * and paragraph breaks as newlines, every tag dropped (a mention's or tag's link keeps its
 * "@name" or "#tag"), entities decoded. A script's or style's content is not words anyone wrote:
 * it goes with its tags (Mastodon and Pixelfed sanitise theirs, but not every server does).
 */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)\b[^>]*>[\s\S]*?(?:<\/\1\s*>|$)/gi, '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>\s*<p[^>]*>/gi, '\n\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, code: string) => {
      if (code[0] === '#') {
        const n = code[1] === 'x' || code[1] === 'X' ? parseInt(code.slice(2), 16) : parseInt(code.slice(1), 10);
        return n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : '';
      }
      return ENTITIES[code.toLowerCase()] ?? whole;
    })
    .trim();
}

/**
 * A photo from another server: only from an address we may reach (remote-actors.ts, reachable),
 * each redirect checked again, within IMAGE_TIMEOUT_MS and `maxBytes` (the rest is not read).
 * Null when it cannot be had.
 */
export async function fetchImage(url: URL, allowedPrivateHosts: readonly string[], maxBytes: number): Promise<Buffer | null> {
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (!reachable(current, allowedPrivateHosts)) return null;
    let res: Response;
    try {
      // Through the federation scope's guard (safe-fetch.ts): the address connected to is checked, and the answer capped.
      res = await guardedFetch(current, { redirect: 'manual', signal: AbortSignal.timeout(IMAGE_TIMEOUT_MS), headers: { accept: 'image/*' } }, maxBytes);
    } catch {
      return null;
    }
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      const location = res.headers.get('location');
      if (!location) return null;
      current = new URL(location, current);
      continue;
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      return null;
    }
    const declared = Number(res.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await res.body.cancel();
      return null;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        size += chunk.length;
        if (size > maxBytes) {
          await res.body.cancel().catch(() => {});
          return null;
        }
        chunks.push(Buffer.from(chunk));
      }
    } catch {
      return null;
    }
    return Buffer.concat(chunks);
  }
  return null;
}

/**
 * Posts of the people we follow on other servers (issue 49, item 2): a `Create` of a Note with
 * photos, from its author, becomes a post here, in the Following feed of whoever follows them,
 * its photos fetched and made ours (posts/post-writes-service.ts, createFromAnotherServer). A
 * Note without a photo, a reply, or one from someone nobody here follows is not kept. Their
 * `Delete` of it removes it, from its author only.
 */
export function registerPostInbox(listeners: InboxListenerSetters<void>, deps: RemotePostsDeps) {
  const { remotePosts, remoteActors, posts, log } = deps;
  // Their picture (the actor's icon), made ours as their profile picture, as their photos are:
  // the app then shows it from this server, never from theirs.
  remoteActors.keepPictures(async (userId, icon) => {
    if (deps.rejectsMedia(icon.host)) return;
    const bytes = await fetchImage(icon, deps.allowedPrivateHosts, deps.maxImageBytes);
    if (!bytes) return;
    try {
      await posts.createFromAnotherServer({
        userId,
        caption: '',
        photos: [{ bytes, altText: '' }],
        sensitive: false,
        warning: '',
        createdAt: Date.now(),
        isProfilePicture: true,
        onInserted: (postId, stored) => deps.remoteMedia.record(postId, stored.map((p) => ({ mediaKey: p.mediaKey, url: icon.href, bytes: p.storedBytes }))),
      });
      await keptWithinCap(deps);
    } catch (err) {
      // Not an image we can read, or they were removed meanwhile: no picture, as before.
      log.info({ user: userId, icon: icon.href, reason: (err as Error).message }, 'federation: a picture we could not take');
    }
  });
  listeners
    .on(Create, async (ctx, create) => {
      const actorId = create.actorId;
      if (!actorId) return;
      const loaders = { documentLoader: ctx.documentLoader, contextLoader: ctx.contextLoader };
      const note = await create.getObject(loaders);
      if (!(note instanceof Note) || !note.id) return;
      if (note.replyTargetId) {
        // Anyone may reply to a post of ours they can see: someone new to us is kept first.
        if (remoteActors.idOf(actorId) === undefined) {
          const actor = await create.getActor(loaders);
          const input = actor && isActor(actor) ? await actorInput(actor) : null;
          if (!input || input.uri.href !== actorId.href) return;
          try {
            remoteActors.upsert(input);
          } catch (err) {
            if (err instanceof RemoteActorRefused) return;
            throw err;
          }
        }
        return deps.comments.reply(create, note);
      }
      const authorId = remoteActors.idOf(actorId);
      if (authorId === undefined || !remotePosts.followedHere(authorId)) return;
      await keepNote(note, actorId, authorId, loaders, deps);
    })
    .on(Update, async (ctx, update) => {
      const actorId = update.actorId;
      const loaders = { documentLoader: ctx.documentLoader, contextLoader: ctx.contextLoader };
      if (!actorId || !update.objectId || update.objectId.origin !== actorId.origin) return;
      const kept = remotePosts.byUri(update.objectId.href);
      // Only its author edits it, and only what the app lets an author edit: texts and the warning.
      if (!kept || kept.userId !== remoteActors.idOf(actorId)) return;
      const note = await update.getObject(loaders);
      if (!(note instanceof Note) || note.id?.href !== update.objectId.href) return;
      const altTexts = new Map<number, string>();
      let place = 0;
      for await (const attachment of note.getAttachments(loaders)) {
        if (place === ALBUM_MAX_PHOTOS) break;
        if (!(attachment instanceof Document) || (attachment.mediaType && !attachment.mediaType.startsWith('image/'))) continue;
        altTexts.set(place++, clip(cleanText(attachment.name?.toString() ?? ''), ALT_TEXT_MAX_LENGTH));
      }
      const caption = clip(cleanText(htmlToText(note.content?.toString() ?? '')), CAPTION_MAX_LENGTH);
      const warning = note.sensitive === true ? clip(cleanText(note.summary?.toString() ?? ''), CONTENT_WARNING_MAX_LENGTH) : '';
      try {
        await posts.editFromAnotherServer(kept.postId, kept.userId, { ...(caption !== '' && { caption }), altTexts }, { sensitive: note.sensitive === true, warning });
      } catch (err) {
        // A photo they added or took away is not ours to follow (the app edits texts only): the rest still counts.
        if (err instanceof HttpError && err.statusCode < 500) log.info({ note: note.id.href, reason: err.message }, 'federation: an edit we could not apply');
        else throw err;
      }
    })
    .on(Delete, async (_ctx, deletion) => {
      const objectId = deletion.objectId;
      const actorId = deletion.actorId;
      if (!objectId || !actorId || objectId.origin !== actorId.origin) return;
      if (objectId.href === actorId.href) {
        // Their account, removed on their server (Mastodon's and Pixelfed's Delete of the actor):
        // only they can say so, and Fedify has checked that they signed it (HTTP Signature, or
        // the Linked Data Signature Mastodon adds). Everything of theirs here goes.
        const userId = remoteActors.idOf(actorId);
        if (userId === undefined) return;
        log.info({ actor: actorId.href }, 'federation: a person removed on their server is removed here');
        await deps.removePerson(userId);
        return;
      }
      const kept = remotePosts.byUri(objectId.href);
      if (!kept && deps.comments.deleteComment(deletion)) return;
      // Only its author deletes it.
      if (!kept || kept.userId !== remoteActors.idOf(actorId)) return;
      await posts.removeFromAnotherServer(kept.postId);
    });
}

export type NoteKeeperDeps = Pick<RemotePostsDeps, 'remotePosts' | 'allowedPrivateHosts' | 'rejectsMedia' | 'maxImageBytes' | 'remoteMedia' | 'log'> & {
  posts: Pick<PostsFromAnotherServer, 'createFromAnotherServer'>;
};

/**
 * A Note of someone on another server made a post here (issue 49, item 2), from a delivered
 * `Create` (registerPostInbox, above) or their outbox (backfill.ts): its photos fetched through our
 * pipeline (fetchImage, above), its caption as text, its content warning and sensitive
 * mark. Their own Note only (attributed to them, on their host), once (by its id), and only with a
 * photo we could take. True when it was kept.
 */
export async function keepNote(
  note: Note,
  actorId: URL,
  authorId: number,
  loaders: { documentLoader: DocumentLoader; contextLoader: DocumentLoader },
  deps: NoteKeeperDeps,
): Promise<boolean> {
  const { remotePosts, posts, log } = deps;
  if (!note.id) return false;
  // Their own post, on their own server: a Create cannot carry another's.
  if (note.attributionId?.href !== actorId.href || note.id.origin !== actorId.origin) return false;
  if (remotePosts.byUri(note.id.href)) return false;
  // "Reject media": no photo of theirs is fetched, and a post here is its photos, so none is kept.
  if (deps.rejectsMedia(actorId.host)) {
    log.info({ note: note.id.href }, 'federation: media from this server is rejected; its post is not kept');
    return false;
  }
  const photos: PostFromAnotherServer['photos'] = [];
  /** Each kept photo's address, in order: a dropped one is fetched again from there (remote-media.ts). */
  const urls: string[] = [];
  for await (const attachment of note.getAttachments(loaders)) {
    if (photos.length === ALBUM_MAX_PHOTOS) break;
    if (!(attachment instanceof Document) || (attachment.mediaType && !attachment.mediaType.startsWith('image/'))) continue;
    const url = attachment.url instanceof URL ? attachment.url : attachment.url?.href;
    if (!url) continue;
    const bytes = await fetchImage(url, deps.allowedPrivateHosts, deps.maxImageBytes);
    if (!bytes) continue;
    photos.push({ bytes, altText: attachment.name?.toString() ?? '' });
    urls.push(url.href);
  }
  if (photos.length === 0) {
    log.info({ note: note.id.href }, 'federation: a post without a photo we could take is not kept');
    return false;
  }
  const published = note.published?.epochMilliseconds ?? Date.now();
  await posts.createFromAnotherServer({
    userId: authorId,
    caption: htmlToText(note.content?.toString() ?? ''),
    photos,
    sensitive: note.sensitive === true,
    warning: note.summary?.toString() ?? '',
    // Never in the future: a wrong clock there must not pin a post to the top of the feed.
    createdAt: Math.min(published, Date.now()),
    onInserted: (postId, stored) => {
      remotePosts.record(postId, note.id!.href, isPublicNote(note));
      deps.remoteMedia.record(postId, stored.map((p, i) => ({ mediaKey: p.mediaKey, url: urls[i]!, bytes: p.storedBytes })));
    },
  });
  await keptWithinCap(deps);
  return true;
}

/** Whether a Note is addressed to everyone (not to followers only, nor a direct message). */
export const isPublicNote = (note: Note): boolean => [...note.toIds, ...note.ccIds].some((u) => u.href === PUBLIC_COLLECTION.href);

/**
 * The remote-media cap applied after a post or picture of another server was stored (the oldest
 * dropped first, remote-media.ts). A storage error there is logged: the post is kept, and the
 * activity that brought it is not failed for it.
 */
async function keptWithinCap(deps: Pick<RemotePostsDeps, 'remoteMedia' | 'log'>): Promise<void> {
  try {
    await deps.remoteMedia.afterStored();
  } catch (err) {
    deps.log.warn({ err: (err as Error).message }, 'remote media: the cap could not be applied');
  }
}
