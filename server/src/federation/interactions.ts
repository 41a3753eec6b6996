import type { Context, Federation, InboxContext, RequestContext } from '@fedify/fedify';
import { Create, Delete, Like, Mention, Note, Object as APObject, PUBLIC_COLLECTION, Tombstone, Undo, type Recipient } from '@fedify/vocab';
import { Temporal } from '@js-temporal/polyfill';
import { HttpError } from '../kernel/errors.js';
import { COMMENT_MAX_LENGTH } from '../kernel/limits.js';
import { cleanText, clip } from '../kernel/text.js';
import type { FederatedPostsRepository } from './federated-posts-repository.js';
import type { RemoteActors } from './remote-actors.js';
import type { InteractionEvent, RemotePostsRepository } from './remote-posts-repository.js';
import { htmlToText } from './remote-posts.js';
import { eachEvent, serialDrain } from './drain.js';
import { escapeHtml, postPath } from './post-activities.js';

/** What federation asks of social/ for likes and comments that cross servers (social/likes-repository.ts, comments-repository.ts). */
export interface SocialForFederation {
  like(postId: number, userId: number): unknown;
  unlike(postId: number, userId: number): unknown;
  comment(postId: number, user: { id: number; username: string }, content: string): { id: number };
  deleteComment(commentId: number, userId: number): unknown;
}

export interface InteractionsDeps {
  origin: string;
  remoteActors: RemoteActors;
  remotePosts: RemotePostsRepository;
  ourPosts: FederatedPostsRepository;
  social: SocialForFederation;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** Who may fetch a person's objects (fetch-access.ts): their comments' Notes ask it too. */
  mayFetch?: (ctx: RequestContext<void>, identifier: string) => Promise<boolean>;
}

const OUR_POST = /^\/users\/([1-9][0-9]{0,14})\/posts\/([1-9][0-9]{0,14})$/;
/** A comment of one of our people, under its author's actor: the Note other servers were sent, and fetch. */
const COMMENT_PATH = '/users/{identifier}/comments/{id}';
const commentPath = (userId: number, commentId: number) => `/users/${userId}/comments/${commentId}`;
const ID = /^[1-9][0-9]{0,14}$/;

/**
 * A comment as a reply Note: to the post's author (mentioned), in public when the post is,
 * else to them alone.
 */
function commentNote(
  actor: URL,
  id: URL,
  comment: { content: string; createdAt: number },
  post: URL,
  postAuthor: URL,
  isPublic: boolean,
): Note {
  const tos = isPublic ? [PUBLIC_COLLECTION] : [postAuthor];
  const ccs = isPublic ? [postAuthor] : [];
  return new Note({
    id,
    attribution: actor,
    replyTarget: post,
    content: `<p>${escapeHtml(comment.content).replace(/\r?\n/g, '<br>')}</p>`,
    mediaType: 'text/html',
    published: Temporal.Instant.fromEpochMilliseconds(comment.createdAt),
    tos,
    ccs,
    tags: [new Mention({ href: postAuthor })],
  });
}

/** Refusals of ours (a like made twice, a post they may not see): the activity is dropped, not retried. */
function quietly(run: () => unknown): boolean {
  try {
    run();
    return true;
  } catch (err) {
    if (err instanceof HttpError && err.statusCode < 500) return false;
    throw err;
  }
}

/**
 * Likes and comments across servers (issue 49, item 4). In: a remote person's `Like` of one of
 * our posts, its `Undo`, a reply (`Note` with `inReplyTo` one of our posts) as a comment shown
 * with their name@host, and their `Delete` of it; each notifies as a local one does, and
 * meets the same checks (a post they may not see, a block). Anonymous posts are never ours to
 * name out there, so no activity can reach one. Out: our people's likes and comments on posts
 * of other servers, from federation_interaction_events, to the post's author's server.
 */
export function createInteractions(federation: Federation<void>, deps: InteractionsDeps) {
  const { origin, remoteActors, remotePosts, ourPosts, social, log } = deps;

  /** Our post an activity names, if it is one other servers may see (named, shown, its author public). */
  const ourPost = (uri: URL | null): number | null => {
    if (!uri || uri.origin !== origin) return null;
    const match = OUR_POST.exec(uri.pathname);
    if (!match) return null;
    const post = ourPosts.post(Number(match[2]));
    if (!post || post.shareable !== 1 || post.userId !== Number(match[1])) return null;
    return post.id;
  };

  const incoming = {
    like(_ctx: InboxContext<void>, like: Like): void {
      const postId = ourPost(like.objectId);
      const remoteId = like.actorId ? remoteActors.idOf(like.actorId) : undefined;
      if (postId === null || remoteId === undefined) return;
      quietly(() => social.like(postId, remoteId));
    },
    undoLike(undo: Undo, like: Like): void {
      if (like.actorId?.href !== undo.actorId?.href) return;
      const postId = ourPost(like.objectId);
      const remoteId = like.actorId ? remoteActors.idOf(like.actorId) : undefined;
      if (postId === null || remoteId === undefined) return;
      quietly(() => social.unlike(postId, remoteId));
    },
    /** A reply to one of our posts, by its author (the Create's actor), as a comment. */
    reply(create: Create, note: Note): void {
      const postId = ourPost(note.replyTargetId);
      const actorId = create.actorId;
      if (postId === null || !actorId || !note.id || note.id.origin !== actorId.origin) return;
      const remoteId = remoteActors.idOf(actorId);
      const username = remoteActors.usernameOf(actorId);
      if (remoteId === undefined || username === undefined || remotePosts.commentByUri(note.id.href)) return;
      const text = clip(cleanText(htmlToText(note.content?.toString() ?? '')), COMMENT_MAX_LENGTH);
      if (text === '') return;
      let commentId: number | undefined;
      quietly(() => {
        commentId = social.comment(postId, { id: remoteId, username }, text).id;
      });
      if (commentId !== undefined) remotePosts.recordComment(commentId, note.id.href);
    },
    /** Their Delete of a comment of theirs: true when it was one. */
    deleteComment(deletion: Delete): boolean {
      const objectId = deletion.objectId;
      const actorId = deletion.actorId;
      if (!objectId || !actorId) return false;
      const kept = remotePosts.commentByUri(objectId.href);
      if (!kept || kept.userId !== remoteActors.idOf(actorId)) return false;
      quietly(() => social.deleteComment(kept.commentId, kept.userId));
      return true;
    },
  };

  /** One like or comment of ours, told to the post's author's server. */
  async function send(ctx: Context<void>, event: InteractionEvent): Promise<void> {
    const target = remotePosts.ofPost(event.postId);
    const author = target ? remoteActors.recipient(target.authorId) : undefined;
    if (!target || !author) return;
    const identifier = String(event.userId);
    const actor = ctx.getActorUri(identifier);
    const recipient: Recipient = { id: new URL(author.uri), inboxId: new URL(author.inbox), endpoints: null };
    const post = new URL(target.uri);
    const likeId = new URL(`${actor.href}#likes/${event.postId}`);
    if (event.kind === 'like') {
      await ctx.sendActivity({ identifier }, recipient, new Like({ id: likeId, actor, object: post }));
    } else if (event.kind === 'unlike') {
      const like = new Like({ id: likeId, actor, object: post });
      await ctx.sendActivity({ identifier }, recipient, new Undo({ id: new URL(`${likeId.href}/undo/${Date.now()}`), actor, object: like }));
    } else if (event.kind === 'comment' && event.commentId !== null) {
      const comment = remotePosts.comment(event.commentId);
      if (!comment) return;
      const noteId = new URL(commentPath(event.userId, event.commentId), origin);
      // A reply to a public post is public; to a followers-only one, for its author alone.
      const note = commentNote(actor, noteId, comment, post, new URL(author.uri), target.isPublic === 1);
      await ctx.sendActivity({ identifier }, recipient, new Create({ id: new URL(`${noteId.href}#create`), actor, object: note, tos: note.toIds, ccs: note.ccIds }));
    } else if (event.kind === 'uncomment' && event.commentId !== null) {
      const noteId = new URL(commentPath(event.userId, event.commentId), origin);
      await ctx.sendActivity(
        { identifier },
        recipient,
        new Delete({ id: new URL(`${noteId.href}#delete`), actor, object: new Tombstone({ id: noteId }), tos: [new URL(author.uri)] }),
      );
    }
  }

  // Our comments' Notes answer at their ids, as the post they are on would: a public post's to
  // anyone; a private account's (or another server's followers-only post's) only to a signed
  // request by someone who may see it (a follower; that post's author); a comment on an anonymous
  // post, a hidden one or one by someone removed or suspended, never (404). A deleted comment's
  // row is gone, so it answers 404, not 410. Registered on Fedify's Object route: its Note one is
  // our posts' (post-activities.ts), and Fedify keeps one dispatcher per class.
  federation.setObjectDispatcher(APObject, COMMENT_PATH, async (ctx, values) => {
    if (!ID.test(values.identifier) || !ID.test(values.id)) return null;
    const c = remotePosts.commentObject(Number(values.id));
    if (!c || c.shown !== 1 || c.userId !== Number(values.identifier)) return null;
    let post: URL;
    let postAuthor: URL;
    let isPublic: boolean;
    if (c.remoteUri !== null && c.postAuthorUri !== null) {
      post = new URL(c.remoteUri);
      postAuthor = new URL(c.postAuthorUri);
      isPublic = c.remotePublic === 1;
      if (!isPublic && (await ctx.getSignedKeyOwner())?.id?.href !== c.postAuthorUri) return null;
    } else if (c.remoteUri === null && c.postAuthorUri === null) {
      post = new URL(postPath(c.postAuthorId, c.postId), origin);
      postAuthor = ctx.getActorUri(String(c.postAuthorId));
      isPublic = c.postAuthorPrivate !== 1;
      if (!isPublic) {
        const owner = (await ctx.getSignedKeyOwner())?.id;
        if (!owner || !remotePosts.follows(owner.href, c.postAuthorId)) return null;
      }
    } else {
      return null;
    }
    return commentNote(ctx.getActorUri(String(c.userId)), new URL(commentPath(c.userId, c.id), origin), c, post, postAuthor, isPublic);
  }).authorize((ctx, values) => deps.mayFetch?.(ctx, values.identifier) ?? true);

  /** Sends every waiting event, in order (drain.ts). */
  const drain = serialDrain(() => {
    const ctx = federation.createContext(new URL(origin), undefined);
    return eachEvent({
      next: (n) => remotePosts.events(n),
      handle: (event) => send(ctx, event),
      done: (id) => remotePosts.done(id),
      failed: (err, event) => log.warn({ err, kind: event.kind, post: event.postId }, 'federation: a like or comment could not be sent'),
    });
  });

  return { incoming, drain };
}

export type Interactions = ReturnType<typeof createInteractions>;
