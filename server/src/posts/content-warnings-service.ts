import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type Database from 'better-sqlite3';
import type { FastifyBaseLogger } from 'fastify';
import type { PostEditView, PostPhotoView } from '../contract/api-shapes.js';
import { badRequest, notFound } from '../kernel/errors.js';
import { CONTENT_WARNING_MAX_LENGTH } from '../kernel/limits.js';
import type { Shared } from '../kernel/shared.js';
import { blurKey, displayKey, mediaUrls, mediumUrl } from '../kernel/storage/media-keys.js';
import type { Storage } from '../kernel/storage/storage.js';
import { cleanText } from '../kernel/text.js';
import { blurImage } from '../media/images/blur.js';
import type { Limiter } from '../media/images/limiter.js';
import type { ContentWarningsRepository, SensitivityRow } from './content-warnings-repository.js';
import type { PostChanges, PostEditsRepository } from './post-edits-repository.js';

/** Whether a post is sensitive and its warning, as asked by its author (create-post, PATCH /api/post) or an operator. */
export interface Sensitivity {
  sensitive: boolean;
  /** Cleaned, at most CONTENT_WARNING_MAX_LENGTH characters; '' when not sensitive. */
  warning: string;
}

/** A warning as stored: cleaned like every text (kernel/text.ts), at most CONTENT_WARNING_MAX_LENGTH characters. */
export function cleanWarning(raw: string): string {
  const text = cleanText(raw);
  const length = Array.from(text).length;
  if (length > CONTENT_WARNING_MAX_LENGTH) {
    throw badRequest(`The content warning is too long: at most ${CONTENT_WARNING_MAX_LENGTH} characters (it has ${length}).`);
  }
  return text;
}

/**
 * `sensitive` and `contentWarning` of a create-post or PATCH /api/post body; undefined when the body
 * says nothing of them. A warning is for a post marked sensitive: one without `sensitive: true` is refused.
 */
export function sensitivityOf(body: { sensitive?: boolean; contentWarning?: string }): Sensitivity | undefined {
  if (body.sensitive === undefined) {
    if (body.contentWarning !== undefined) throw badRequest('A content warning is for a post marked sensitive: send sensitive: true with it.');
    return undefined;
  }
  const warning = body.contentWarning === undefined ? '' : cleanWarning(body.contentWarning);
  if (!body.sensitive && warning !== '') throw badRequest('A content warning is for a post marked sensitive: send sensitive: true with it.');
  return { sensitive: body.sensitive, warning };
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

export interface ContentWarningsDeps {
  sqlite: Database.Database;
  shared: Shared;
  storage: Storage;
  limiter: Limiter;
  repo: ContentWarningsRepository;
  edits: PostEditsRepository;
  log: Pick<FastifyBaseLogger, 'warn'>;
}

/**
 * Content warnings (docs/api.md, "Content warnings"). Marking a post sensitive needs its blurred
 * image: made from the stored display image (so a post made before this existed works the same),
 * stored under a new key, and only then, in one transaction, the post's flag, warning and blur_key
 * set. If the transaction refuses (the post gone, not the caller's, the caller suspended), the new
 * image is deleted and the post is as it was; if making the image fails, nothing was written. A
 * crash between the two leaves an image nothing points at, never a sensitive post without one.
 */
export function createContentWarningsService({ sqlite, shared, storage, limiter, repo, edits, log }: ContentWarningsDeps) {
  /** The blurred image of `mediaKey`'s display image, stored; its key. */
  async function makeBlur(mediaKey: string): Promise<string> {
    const image = await limiter.run(async () => blurImage(await readAll(await storage.read(displayKey(mediaKey)))));
    const key = randomBytes(16).toString('base64url');
    await storage.write(blurKey(key), image, 'image/webp');
    return key;
  }

  async function removeBlur(key: string) {
    try {
      await storage.delete(blurKey(key));
    } catch (err) {
      log.warn({ err: (err as Error).message, key }, 'could not remove an unused blurred image');
    }
  }

  /**
   * Sets a post's sensitivity: its blurred image made first when it is to be sensitive and has
   * none, then `inTransaction(post)` (the caller's checks and writes, which may throw) and the
   * update in one IMMEDIATE transaction.
   */
  async function apply<T>(postId: number, wanted: Sensitivity, inTransaction: (post: SensitivityRow) => T): Promise<T> {
    const before = repo.row(postId);
    if (!before || before.isProfilePicture === 1) throw notFound('This post does not exist.');
    const made = wanted.sensitive && before.blurKey === null ? await makeBlur(before.mediaKey) : null;
    let result: T;
    let used = false;
    try {
      result = sqlite
        .transaction(() => {
          const post = repo.row(postId);
          if (!post || post.isProfilePicture === 1) throw notFound('This post does not exist.');
          const value = inTransaction(post);
          repo.set(postId, wanted.sensitive, wanted.sensitive ? wanted.warning : '', made);
          used = made !== null && post.blurKey === null;
          return value;
        })
        .immediate();
    } finally {
      // Refused, or another request made the post's blurred image meanwhile: this one is of no use.
      if (made !== null && !used) await removeBlur(made);
    }
    return result;
  }

  const sensitiveField = (postId: number) => {
    const post = repo.row(postId);
    return post && post.sensitive === 1 ? { sensitive: { warning: post.contentWarning, blurred: false } } : {};
  };

  return {
    /** For create-post (post-writes-service.ts): the blurred image of a new post's first photo, stored; its key. */
    makeBlur,
    removeBlur,

    /**
     * PATCH /api/post: the author's edit of the text (post-edits-repository.ts) and of the
     * sensitivity, in one transaction; the answer says whether the post is sensitive now.
     */
    async edit(postId: number, userId: number, text: PostChanges | undefined, sensitivity: Sensitivity | undefined): Promise<PostEditView> {
      if (sensitivity === undefined) return { ...edits.edit(postId, userId, text ?? {}), ...sensitiveField(postId) };
      // Someone else's post (or none): refused by the edit's own checks (404 or 403) before any
      // image is made for it, so nobody can have the server blur photos that are not theirs.
      if (repo.row(postId)?.userId !== userId) edits.edit(postId, userId, {});
      // The edit's own checks (the caller live, the post theirs and shown) run first, inside this
      // transaction (a savepoint): the text and the flag change together or not at all.
      const edited = await apply(postId, sensitivity, () => edits.edit(postId, userId, text ?? {}));
      return { ...edited, ...sensitiveField(postId) };
    },

    /** An operator marks a post sensitive (moderation/admin-routes.ts); `record` logs it in the same transaction. */
    async markAsOperator(postId: number, warning: string, record: (post: SensitivityRow) => void): Promise<void> {
      await apply(postId, { sensitive: true, warning }, (post) => {
        if (post.sensitive === 1) throw badRequest('This post is already marked sensitive.');
        record(post);
      });
    },

    /** "Show photo": the photo itself of a post the caller may see, 404 otherwise (as for any post: posts-repository.ts). */
    photo(postId: number, viewer: number): PostPhotoView {
      const found = repo.photoFor(postId, viewer);
      if (!found) throw notFound('This post does not exist.');
      const { first, album } = found;
      const view = (p: { mediaKey: string; width: number; height: number; mediumWidth: number; altText: string }) => ({
        ...mediaUrls(p.mediaKey),
        width: p.width,
        height: p.height,
        mediumUrl: mediumUrl(p.mediaKey, p.mediumWidth),
        mediumWidth: p.mediumWidth,
        altText: p.altText,
      });
      return { ...view(first), ...(album.length > 0 && { photos: [view(first), ...album.map(view)] }) };
    },

    alwaysShows: (userId: number) => ({ alwaysShow: repo.alwaysShows(userId) }),
    setAlwaysShows(userId: number, on: boolean) {
      sqlite
        .transaction(() => {
          shared.live.assert(userId);
          repo.setAlwaysShows(userId, on);
        })
        .immediate();
      return { alwaysShow: on };
    },
  };
}

export type ContentWarningsService = ReturnType<typeof createContentWarningsService>;
