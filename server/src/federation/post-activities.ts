import type { Context, Federation, RequestContext } from '@fedify/fedify';
import { Create, Delete, Hashtag, Image, Mention, Note, PUBLIC_COLLECTION, Tombstone, Update, type Recipient } from '@fedify/vocab';
import { Temporal } from '@js-temporal/polyfill';
import type { FederatedPost, FederatedPostsRepository, FollowerInbox, PostEvent } from './federated-posts-repository.js';
import { eachEvent, serialDrain } from './drain.js';

/** A post's object, under its author's actor: `/users/<author>/posts/<post>`. */
export const POST_PATH = '/users/{identifier}/posts/{id}';
export const postPath = (userId: number, postId: number) => `/users/${userId}/posts/${postId}`;

/** Mastodon shows the first four attachments of a post and drops the rest. */
const SHOWN_BY_MASTODON = 4;

export interface PostActivitiesDeps {
  origin: string;
  repo: FederatedPostsRepository;
  log: { warn(obj: object, msg: string): void };
  /** Who may fetch a person's objects (fetch-access.ts): the posts' Notes ask it too. */
  mayFetch?: (ctx: RequestContext<void>, identifier: string) => Promise<boolean>;
}

export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * A caption as a Note's HTML: the text escaped, its lines as <br>, its tags and mentions as the
 * links Mastodon writes (rel="tag"; an h-card around a mention). Only tags and names the post
 * recorded are linked, so the links say what the app shows.
 */
export function captionHtml(caption: string, tags: readonly string[], mentions: ReadonlyMap<string, string>, origin: string): string {
  const tagSet = new Set(tags.map((t) => t.toLowerCase()));
  const linked = escapeHtml(caption).replace(/(^|[^\p{L}\p{N}_&])([#@])([\p{L}\p{N}_]+(?:[.-][\p{L}\p{N}_]+)*)/gu, (whole, before: string, mark: string, word: string) => {
    if (mark === '#' && tagSet.has(word.toLowerCase())) {
      const href = escapeHtml(`${origin}/app/tag/${encodeURIComponent(word.toLowerCase())}`);
      return `${before}<a href="${href}" class="mention hashtag" rel="tag">#<span>${word}</span></a>`;
    }
    const actor = mark === '@' ? mentions.get(word.toLowerCase()) : undefined;
    if (actor) {
      const href = escapeHtml(`${origin}/app/profile/${encodeURIComponent(word)}`);
      return `${before}<span class="h-card"><a href="${href}" class="u-url mention">@<span>${word}</span></a></span>`;
    }
    return whole;
  });
  return `<p>${linked.replace(/\r?\n/g, '<br>')}</p>`;
}

/**
 * One of our posts as a Note (issue 49, item 3): its photos as an array of Image with a JPEG
 * (media/images/pipeline.ts, displayJpeg) others can take, their alt text as `name`, and sizes;
 * `sensitive` and the warning as `summary`; tags and mentions. A public account's post is to
 * the Public collection with its followers in cc; a private account's to its followers only.
 */
export function noteOf(ctx: Context<void>, post: FederatedPost, repo: FederatedPostsRepository, origin: string): Note {
  const identifier = String(post.userId);
  const actor = ctx.getActorUri(identifier);
  const followers = ctx.getFollowersUri(identifier);
  const id = new URL(postPath(post.userId, post.id), origin);
  const mentions = new Map<string, string>();
  for (const name of post.mentions ? (JSON.parse(post.mentions) as string[]) : []) {
    const personId = repo.personId(name);
    if (personId !== undefined) mentions.set(name.toLowerCase(), ctx.getActorUri(String(personId)).href);
  }
  let content = captionHtml(post.caption, post.tags, mentions, origin);
  // The app has no page of one post: its author's page, where it is, is its `url`.
  const profile = new URL(`/app/profile/${encodeURIComponent(post.username)}`, origin);
  if (post.photos.length > SHOWN_BY_MASTODON) {
    // Servers that show four say what is missing, with a link to the whole album on its author's page.
    content += `<p>1 of ${post.photos.length} photos, <a href="${escapeHtml(profile.href)}">see all</a></p>`;
  }
  const host = new URL(origin).host;
  return new Note({
    id,
    attribution: actor,
    url: profile,
    content,
    mediaType: 'text/html',
    published: Temporal.Instant.fromEpochMilliseconds(post.createdAt),
    updated: post.editedAt === null ? null : Temporal.Instant.fromEpochMilliseconds(post.editedAt),
    tos: post.isPrivate === 1 ? [followers] : [PUBLIC_COLLECTION],
    ccs: post.isPrivate === 1 ? [] : [followers],
    sensitive: post.sensitive === 1,
    summary: post.contentWarning === '' ? null : post.contentWarning,
    attachments: post.photos.map(
      (photo) =>
        new Image({
          url: new URL(`/media/${photo.mediaKey}/display.jpg`, origin),
          mediaType: 'image/jpeg',
          name: photo.altText === '' ? null : photo.altText,
          width: photo.width,
          height: photo.height,
        }),
    ),
    tags: [
      ...post.tags.map((tag) => new Hashtag({ href: new URL(`/app/tag/${encodeURIComponent(tag)}`, origin), name: `#${tag}` })),
      ...[...mentions].map(([name, uri]) => new Mention({ href: new URL(uri), name: `@${name}@${host}` })),
    ],
  });
}

/** A post's Create: what its followers were sent, and what the outbox lists. Its id is the Note's with #create. */
export function createOf(ctx: Context<void>, post: FederatedPost, repo: FederatedPostsRepository, origin: string): Create {
  const note = noteOf(ctx, post, repo, origin);
  return new Create({
    id: new URL(`${note.id!.href}#create`),
    actor: ctx.getActorUri(String(post.userId)),
    object: note,
    tos: note.toIds,
    ccs: note.ccIds,
    published: note.published,
  });
}

/** Serves our posts' Notes to other servers: shareable posts of public accounts only. */
export function registerPostObjects(federation: Federation<void>, deps: PostActivitiesDeps) {
  federation.setObjectDispatcher(Note, POST_PATH, (ctx, values) => {
    if (!/^[1-9][0-9]{0,14}$/.test(values.identifier) || !/^[1-9][0-9]{0,14}$/.test(values.id)) return null;
    const post = deps.repo.post(Number(values.id));
    // A private account's posts are for its followers, whom a plain fetch does not name: refused (404).
    if (!post || post.shareable !== 1 || post.userId !== Number(values.identifier) || post.isPrivate === 1) return null;
    return noteOf(ctx, post, deps.repo, deps.origin);
  }).authorize((ctx, values) => deps.mayFetch?.(ctx, values.identifier) ?? true);
}

/** The followers' inboxes as Fedify's recipients: the shared inbox where a server offers one (sendActivity's preferSharedInbox). */
const recipientsOf = (followers: FollowerInbox[]): Recipient[] =>
  followers.map((f) => ({
    id: new URL(f.uri),
    inboxId: new URL(f.inbox),
    endpoints: f.sharedInbox ? { sharedInbox: new URL(f.sharedInbox) } : null,
  }));

/**
 * The federation worker for our posts: reads federation_post_events in order and sends each
 * post's Create, Update or Delete to its author's followers on other servers, through Fedify's
 * queue (which signs, delivers and retries). An event is removed once its activity is queued; a
 * crash before that sends it again after the restart, under the same activity id, which the
 * receiving servers take once.
 */
export function createPostDelivery(federation: Federation<void>, deps: PostActivitiesDeps) {
  const { repo, origin, log } = deps;
  const context = () => federation.createContext(new URL(origin), undefined);

  async function handle(ctx: Context<void>, event: PostEvent): Promise<void> {
    const identifier = String(event.userId);
    const actor = ctx.getActorUri(identifier);
    const noteId = new URL(postPath(event.userId, event.postId), origin);
    // The cheapest reads first: most events are of posts no other server has or needs.
    const federated = repo.federated(event.postId);
    if (event.kind === 'create' ? federated !== undefined : !federated || federated.deletedAt !== null) return;
    const post = event.kind === 'delete' ? undefined : repo.post(event.postId);
    if (event.kind === 'create' && (!post || post.shareable !== 1)) return;
    const followers = repo.followersOf(event.userId);
    if (followers.length === 0 && event.kind === 'create') return;
    const send = async (activity: Create | Update | Delete) => {
      if (followers.length > 0) await ctx.sendActivity({ identifier }, recipientsOf(followers), activity, { preferSharedInbox: true });
    };

    if (event.kind === 'create') {
      await send(createOf(ctx, post!, repo, origin));
      repo.markDelivered(event.postId, event.userId);
      return;
    }
    if (event.kind === 'update' && post && post.shareable === 1) {
      const at = Date.now();
      const note = noteOf(ctx, post, repo, origin).clone({ updated: Temporal.Instant.fromEpochMilliseconds(Math.max(at, post.editedAt ?? 0)) });
      await send(new Update({ id: new URL(`${noteId.href}#update/${at}`), actor, object: note, tos: note.toIds, ccs: note.ccIds }));
      return;
    }
    // Removed, or no longer one to share (made anonymous, hidden by an operator): deleted out there.
    await send(
      new Delete({
        id: new URL(`${noteId.href}#delete`),
        actor,
        object: new Tombstone({ id: noteId }),
        tos: [PUBLIC_COLLECTION],
      }),
    );
    repo.markDeleted(event.postId);
  }

  /** A removed person's Delete of their own actor, to every server that knew them. */
  async function deleteActor(ctx: Context<void>, userId: number, recipients: FollowerInbox[]): Promise<void> {
    const identifier = String(userId);
    const actor = ctx.getActorUri(identifier);
    await ctx.sendActivity(
      { identifier },
      recipientsOf(recipients),
      new Delete({ id: new URL(`${actor.href}#delete`), actor, object: actor, tos: [PUBLIC_COLLECTION] }),
      { preferSharedInbox: true },
    );
  }

  /** Handles every waiting event, removed people first (their Delete makes the other servers drop all they had of them). */
  const drain = serialDrain(async () => {
    for (const removed of repo.actorDeletions(50)) {
      try {
        await deleteActor(context(), removed.userId, removed.recipients);
      } catch (err) {
        log.warn({ err, user: removed.userId }, "federation: a removed person's Delete could not be sent");
      }
      repo.actorDeletionSent(removed.userId);
    }
    const ctx = context();
    await eachEvent({
      next: (n) => repo.events(n),
      handle: (event) => handle(ctx, event),
      done: (id) => repo.done(id),
      failed: (err, event) => log.warn({ err, post: event.postId, kind: event.kind }, 'federation: a post could not be sent'),
    });
  });
  return { drain };
}
