import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../kernel/config.js';
import { badRequest, conflict, forbidden, HttpError, notFound, payloadTooLarge } from '../kernel/errors.js';
import { ALBUM_MAX_PHOTOS, ALT_TEXT_MAX_LENGTH, CAPTION_MAX_LENGTH, CONTENT_WARNING_MAX_LENGTH } from '../kernel/limits.js';
import { cleanText, clip } from '../kernel/text.js';
import { allMediaKeys, blurKey as blurKeyOf, displayKey, mediaUrls, mediumKey, thumbKey } from '../kernel/storage/media-keys.js';
import type { Storage } from '../kernel/storage/storage.js';
import type { Limiter } from '../media/images/limiter.js';
import { processImage } from '../media/images/pipeline.js';
import type { MediaRepository, UploadRow } from '../media/media-repository.js';
import { mb, quotaExceeded, UPLOAD_KEY, type MediaService } from '../media/media-service.js';
import type { AuthUser } from '../people/users-repository.js';
import { createPageWriter } from './page-json.js';
import { cleanAltText, cleanCaption } from './post-text.js';
import type { DeletedPost, NewPhoto, PostWritesRepository } from './post-writes-repository.js';
import { sensitivityOf, type ContentWarningsService, type Sensitivity } from './content-warnings-service.js';

/** What create-post takes (posts/post-write-routes.ts): one photo by `s3Key`, or an album by `photos`. */
export interface CreatePostBody {
  s3Key?: string;
  photos?: { s3Key: string; altText?: string }[];
  caption?: string;
  altText?: string;
  isAnonymous?: boolean;
  isProfilePicture?: boolean;
  sensitive?: boolean;
  contentWarning?: string;
}


/** A post of someone on another server, as federation received it (federation/remote-posts.ts). */
export interface PostFromAnotherServer {
  /** The users row of its author (users.host set). */
  userId: number;
  /** Plain text, already cleaned of the sender's markup. */
  caption: string;
  /** Its photos' bytes as fetched, in order, each with its description. */
  photos: { bytes: Buffer; altText: string }[];
  /** Marked sensitive there, with its warning ('' for none). */
  sensitive: boolean;
  warning: string;
  createdAt: number;
  /** Their profile picture (the actor's icon, federation/remote-posts.ts), not a post: shown on their profile only. */
  isProfilePicture?: boolean;
  /**
   * Run in the insert's transaction with the new post's id and its photos as stored, in order
   * (federation/remote-media.ts counts them against the remote-media cap).
   */
  onInserted: (id: number, stored: { mediaKey: string; storedBytes: number }[]) => void;
}

/** The new post as JSON text of the Post schema, written by the Post writer (posts/page-json.ts). */
export interface CreatedPost {
  json: string;
}

export interface PostWritesDeps {
  config: Config;
  storage: Storage;
  /** The uploads a post is made from (media/). */
  uploads: MediaRepository;
  media: Pick<MediaService, 'readUpload' | 'removeStored'>;
  repo: PostWritesRepository;
  limiter: Limiter;
  log: FastifyBaseLogger;
  now?: () => number;
  /** A sensitive post's blurred image (posts/content-warnings-service.ts). */
  blur: Pick<ContentWarningsService, 'makeBlur' | 'removeBlur'>;
}

/** A post to make, read from the request: who it is for, its texts and its photos in order. */
interface Draft {
  isProfilePicture: boolean;
  /** Sent as `photos`: the answers speak of an album, whatever its length. */
  album: boolean;
  isAnonymous: boolean;
  caption: string;
  items: { s3Key: string; altText?: string }[];
  altTexts: string[];
  /** "Photo 3 of 5: …" in an album's answers, so the person knows which one to change. */
  which: (i: number, message: string) => string;
  /** Marked sensitive when posted, with its warning (docs/api.md, "Content warnings"); null: not. */
  sensitivity: Sensitivity | null;
}

type StoredPhoto = NewPhoto & { storedBytes: number };

/**
 * The photos of a post in order, each with its description: the spec's single `s3Key` (with
 * `altText`), or 1 to ALBUM_MAX_PHOTOS `photos`, each upload once (docs/api.md, "Albums").
 */
function photosOf(body: CreatePostBody, isProfilePicture: boolean): { s3Key: string; altText?: string }[] {
  if (body.photos === undefined) {
    if (body.s3Key === undefined) throw badRequest('A photo is required: send s3Key, or photos for an album.');
    return [{ s3Key: body.s3Key, altText: body.altText }];
  }
  if (body.s3Key !== undefined) throw badRequest('Send either s3Key (one photo) or photos (an album), not both.');
  if (isProfilePicture) throw badRequest('A profile picture is one photo: send s3Key, not photos.');
  if (body.altText !== undefined) throw badRequest("In an album each photo has its own description: send it as photos[].altText.");
  if (body.photos.length === 0) throw badRequest('An album needs at least one photo.');
  if (body.photos.length > ALBUM_MAX_PHOTOS) {
    throw badRequest(`An album holds at most ${ALBUM_MAX_PHOTOS} photos (this one has ${body.photos.length}).`);
  }
  const seen = new Set<string>();
  for (const [i, photo] of body.photos.entries()) {
    if (seen.has(photo.s3Key)) throw badRequest(`Photo ${i + 1} is the same upload as an earlier one: each photo needs its own upload.`);
    seen.add(photo.s3Key);
  }
  return body.photos;
}

/** The body checked and its texts cleaned; nothing is read from storage or written yet. */
function draftOf(body: CreatePostBody): Draft {
  const isProfilePicture = body.isProfilePicture === true;
  const isAnonymous = !isProfilePicture && body.isAnonymous === true;
  const items = photosOf(body, isProfilePicture);
  const album = body.photos !== undefined;
  let caption = '';
  if (!isProfilePicture) {
    if (body.caption === undefined) throw badRequest('A caption is required.');
    caption = cleanCaption(body.caption);
  }
  const which = (i: number, message: string) => (album ? `Photo ${i + 1} of ${items.length}: ${message}` : message);
  const altTexts = items.map((item, i) => {
    if (isProfilePicture) return '';
    try {
      return cleanAltText(item.altText);
    } catch (err) {
      throw err instanceof HttpError ? badRequest(which(i, err.message)) : err;
    }
  });
  const sensitivity = sensitivityOf(body);
  if (isProfilePicture && sensitivity?.sensitive) throw badRequest('A profile picture cannot be marked sensitive.');
  return { isProfilePicture, album, isAnonymous, caption, items, altTexts, which, sensitivity: sensitivity?.sensitive ? sensitivity : null };
}

/**
 * Making, deleting and removing posts: create-post turns the caller's uploads (media/) into a
 * post's processed images and row; delete-post and an operator's removal take both away.
 */
export function createPostWritesService(deps: PostWritesDeps) {
  const { config, storage, uploads, media, repo, limiter, blur } = deps;
  const now = deps.now ?? Date.now;
  const { maxBytes, maxPixels, quotaBytes } = config.uploads;
  // One post at a time, never shown again from here: nothing worth keeping.
  const writer = createPageWriter(1, 1);

  /** Every upload checked (the caller's, not used) and known to have arrived, before any is claimed. */
  async function arrivedUploads(user: AuthUser, { items, which }: Draft): Promise<UploadRow[]> {
    const rows: UploadRow[] = [];
    for (const [i, item] of items.entries()) {
      const fail = (make: (message: string) => HttpError, message: string) => make(which(i, message));
      // Validate the key's shape first so nothing a client sends reaches storage unchecked.
      const row = UPLOAD_KEY.test(item.s3Key) ? uploads.findUpload(item.s3Key) : undefined;
      if (!row) throw fail(notFound, 'No such upload: upload the file first.');
      if (row.userId !== user.id) throw fail(forbidden, 'This upload belongs to someone else.');
      if (row.status === 'used') throw fail(conflict, 'This upload was already used for a post.');
      rows.push(row);
    }
    for (const [i, row] of rows.entries()) {
      if (row.status !== 'pending') continue;
      // S3 uploads never pass through us: the object itself says whether it arrived.
      const stored = storage.driver === 's3' ? await storage.stat(row.key) : null;
      if (!stored) throw conflict(which(i, 'The file has not been uploaded yet.'));
      if (uploads.markUploaded(row.key, stored.size) === 'gone') throw notFound(which(i, 'No such upload: upload the file first.'));
    }
    return rows;
  }

  /**
   * Claims every upload for this post, or none: whatever goes wrong on the way (a claim refused,
   * a transaction that throws: the caller gone or suspended, 401 or 403) releases those claimed so far.
   */
  function claimAll(user: AuthUser, rows: UploadRow[], { which }: Draft): void {
    const claimed: string[] = [];
    try {
      for (const [i, row] of rows.entries()) {
        if (!uploads.claimUpload(row.key, user.id)) {
          if (!uploads.findUpload(row.key)) throw notFound(which(i, 'No such upload: upload the file first.'));
          throw conflict(which(i, 'This upload was already used for a post.'));
        }
        claimed.push(row.key);
      }
    } catch (err) {
      for (const key of claimed) uploads.releaseUpload(key);
      throw err;
    }
  }

  /**
   * Each photo processed (one at a time through the limiter: an album takes no more of the image
   * jobs than a post) and stored. `written` lists every media key before its first write, so
   * whatever of it lands can be removed; `progress.current` says which photo failed.
   */
  async function storePhotos(user: AuthUser, rows: UploadRow[], draft: Draft, written: string[], progress: { current: number }) {
    const photos: StoredPhoto[] = [];
    for (const [i, row] of rows.entries()) {
      progress.current = i;
      const size = uploads.findUpload(row.key)?.size ?? 0;
      if (size > maxBytes) throw payloadTooLarge(`The file is larger than the ${mb(maxBytes)} allowed.`);
      const processed = await limiter.run(async () => processImage(await media.readUpload(row.key, user.id), { maxPixels, maxBytes }));
      // The quota counts what is stored: the processed images (this upload's raw bytes no longer count).
      const storedBytes = processed.display.length + processed.thumb.length + (processed.medium?.data.length ?? 0);
      const albumBytes = photos.reduce((sum, f) => sum + f.storedBytes, 0) + storedBytes;
      if (quotaBytes > 0) {
        // Early, to spare the storage writes; the insert checks again, atomically.
        const used = uploads.storageUsed(user.id);
        if (used + albumBytes > quotaBytes) throw overQuota(draft, progress, used, albumBytes);
      }
      const mediaKey = randomBytes(16).toString('base64url');
      written.push(mediaKey);
      await storage.write(displayKey(mediaKey), processed.display, 'image/webp');
      await storage.write(thumbKey(mediaKey), processed.thumb, 'image/webp');
      if (processed.medium) await storage.write(mediumKey(mediaKey), processed.medium.data, 'image/webp');
      photos.push({ mediaKey, width: processed.width, height: processed.height, mediumWidth: processed.medium?.width ?? 0, altText: draft.altTexts[i]!, storedBytes });
    }
    progress.current = -1;
    return photos as [StoredPhoto, ...StoredPhoto[]];
  }

  /** Not about one photo: the whole album is refused, and its uploads with it (they would take the room too). */
  function overQuota(draft: Draft, progress: { current: number }, used: number, needed: number) {
    progress.current = -1;
    return quotaExceeded(quotaBytes, used, needed, undefined, draft.album ? 'this album needs at least' : 'this photo needs');
  }

  /**
   * The one way back once the uploads are claimed and the post is not made: none of its images
   * stays (an album whose third photo fails keeps neither the first two); an upload that is of no
   * use (not an image, too big, damaged, or the quota refused) goes, the others are released so
   * the person can try again. The error names the photo it was about.
   */
  async function abandon(err: unknown, rows: UploadRow[], written: string[], current: number, which: Draft['which']): Promise<never> {
    for (const mediaKey of written) for (const key of allMediaKeys(mediaKey)) await media.removeStored(key);
    const quota = err instanceof HttpError && err.code === 'storage_quota_exceeded';
    for (const [i, row] of rows.entries()) {
      if (quota || (i === current && err instanceof HttpError && err.statusCode !== 503)) {
        await media.removeStored(row.key);
        uploads.deleteUpload(row.key);
      } else {
        // Busy, our own failure, or another photo's fault: the upload stays usable.
        uploads.releaseUpload(row.key);
      }
    }
    if (err instanceof HttpError && current >= 0) throw new HttpError(err.statusCode, err.code, which(current, err.message), err.headers);
    throw err;
  }

  async function removePost(postId: number, userId: number | null, record?: (post: DeletedPost) => void) {
    const result = repo.deletePost(postId, userId, record);
    if (result.outcome === 'not_found') throw notFound('No such post.');
    if (result.outcome === 'forbidden') throw forbidden('Only the author can delete this post.');
    // After the commit: a crash here leaves unreferenced files, never a post without its image.
    for (const mediaKey of [result.post.mediaKey, ...result.post.moreMediaKeys]) for (const key of allMediaKeys(mediaKey)) await media.removeStored(key);
    if (result.post.blurKey !== null) await media.removeStored(blurKeyOf(result.post.blurKey));
    return { deleted: true as const };
  }

  return {
    /**
     * create-post: the body checked, the uploads checked and claimed, the photos processed and
     * stored, then the post and its counters in one transaction (which also checks that the
     * author still exists, is not suspended and has room); if anything refuses, `abandon`.
     */
    async createPost(user: AuthUser, body: CreatePostBody): Promise<CreatedPost | { profilePictureUrl: string }> {
      const draft = draftOf(body);
      const rows = await arrivedUploads(user, draft);
      claimAll(user, rows, draft);
      const written: string[] = [];
      const progress = { current: 0 };
      const createdAt = now();
      let postid: number;
      let mentions: string | null;
      let photos: [StoredPhoto, ...StoredPhoto[]];
      let blurKey: string | null = null;
      try {
        photos = await storePhotos(user, rows, draft, written, progress);
        const [first, ...more] = photos;
        if (draft.sensitivity) blurKey = await blur.makeBlur(first.mediaKey);
        const storedBytes = photos.reduce((sum, f) => sum + f.storedBytes, 0);
        const inserted = repo.insertPost(
          {
            userId: user.id,
            caption: draft.caption,
            altText: first.altText,
            isAnonymous: draft.isAnonymous,
            isProfilePicture: draft.isProfilePicture,
            mediaKey: first.mediaKey,
            width: first.width,
            height: first.height,
            mediumWidth: first.mediumWidth,
            createdAt,
            storedBytes,
            morePhotos: more.map(({ storedBytes: _bytes, ...photo }) => photo),
            ...(draft.sensitivity && blurKey !== null && { sensitive: { warning: draft.sensitivity.warning, blurKey } }),
          },
          quotaBytes,
        );
        if ('overQuota' in inserted) throw overQuota(draft, progress, inserted.overQuota, storedBytes);
        postid = inserted.id;
        mentions = inserted.mentions;
      } catch (err) {
        if (blurKey !== null) await blur.removeBlur(blurKey);
        return abandon(err, rows, written, progress.current, draft.which);
      }
      for (const row of rows) await media.removeStored(row.key);
      return answer(user, draft, postid, createdAt, photos, blurKey, mentions);
    },

    async deletePost(user: AuthUser, postId: number) {
      return removePost(postId, user.id);
    },

    /**
     * A post received from another server: its photos through the same pipeline as an upload's
     * (metadata stripped, our renditions, stored here: viewers never fetch from the other server),
     * then the post in one transaction. Counted in no one's quota. Nothing stays if it fails.
     */
    async createFromAnotherServer(input: PostFromAnotherServer): Promise<number> {
      const written: string[] = [];
      let blurKey: string | null = null;
      try {
        const photos: StoredPhoto[] = [];
        for (const photo of input.photos) {
          const processed = await limiter.run(async () => processImage(Readable.from([photo.bytes]), { maxPixels, maxBytes }));
          const mediaKey = randomBytes(16).toString('base64url');
          written.push(mediaKey);
          await storage.write(displayKey(mediaKey), processed.display, 'image/webp');
          await storage.write(thumbKey(mediaKey), processed.thumb, 'image/webp');
          if (processed.medium) await storage.write(mediumKey(mediaKey), processed.medium.data, 'image/webp');
          const storedBytes = processed.display.length + processed.thumb.length + (processed.medium?.data.length ?? 0);
          photos.push({ mediaKey, width: processed.width, height: processed.height, mediumWidth: processed.medium?.width ?? 0, altText: clip(cleanText(photo.altText), ALT_TEXT_MAX_LENGTH), storedBytes });
        }
        const [first, ...more] = photos;
        if (!first) throw badRequest('A post needs a photo.');
        if (input.sensitive) blurKey = await blur.makeBlur(first.mediaKey);
        const inserted = repo.insertPost(
          {
            userId: input.userId,
            caption: clip(cleanText(input.caption), CAPTION_MAX_LENGTH),
            altText: first.altText,
            isAnonymous: false,
            isProfilePicture: input.isProfilePicture === true,
            mediaKey: first.mediaKey,
            width: first.width,
            height: first.height,
            mediumWidth: first.mediumWidth,
            createdAt: input.createdAt,
            storedBytes: photos.reduce((sum, f) => sum + f.storedBytes, 0),
            morePhotos: more.map(({ storedBytes: _bytes, ...photo }) => photo),
            ...(input.sensitive && blurKey !== null && { sensitive: { warning: clip(cleanText(input.warning), CONTENT_WARNING_MAX_LENGTH), blurKey } }),
            fromAnotherServer: true,
            onInserted: (id) => input.onInserted(id, photos.map(({ mediaKey, storedBytes }) => ({ mediaKey, storedBytes }))),
          },
          0,
        );
        if ('overQuota' in inserted) throw new Error('no quota applies to a post from another server');
        return inserted.id;
      } catch (err) {
        if (blurKey !== null) await blur.removeBlur(blurKey);
        for (const mediaKey of written) for (const key of allMediaKeys(mediaKey)) await media.removeStored(key);
        throw err;
      }
    },

    /**
     * A photo of another server's, dropped here past the remote-media cap or retention, made again
     * from its original by the same pipeline, in the same image queue (federation/remote-media.ts).
     */
    async renditionsFromAnotherServer(bytes: Buffer): Promise<{ display: Buffer; thumb: Buffer; medium: Buffer | null }> {
      const made = await limiter.run(async () => processImage(Readable.from([bytes]), { maxPixels, maxBytes }));
      return { display: made.display, thumb: made.thumb, medium: made.medium?.data ?? null };
    },

    /** A post its author's server deleted (federation): removed here with its photos, likes and comments. */
    async removeFromAnotherServer(postId: number) {
      return removePost(postId, null);
    },

    /** An operator's removal: `record` writes the action in the deleting transaction. */
    async removePostAsOperator(postId: number, record: (post: DeletedPost) => void) {
      return removePost(postId, null, record);
    },
  };

  /** The same Post every feed gives its author, by the same writer (posts/page-json.ts); or the new picture's address. */
  function answer(user: AuthUser, draft: Draft, postid: number, createdAt: number, stored: StoredPhoto[], blurKey: string | null, mentions: string | null = null) {
    const [first, ...more] = stored.map(({ storedBytes: _bytes, ...photo }) => photo) as [NewPhoto, ...NewPhoto[]];
    if (draft.isProfilePicture) return { profilePictureUrl: mediaUrls(first.mediaKey).thumbnailUrl };
    const pictureKey = draft.isAnonymous ? null : repo.profilePictureKey(user.id);
    return {
      json: writer.post(
        {
          id: postid,
          userId: user.id,
          caption: draft.caption,
          altText: first.altText,
          isAnonymous: draft.isAnonymous ? 1 : 0,
          mediaKey: first.mediaKey,
          width: first.width,
          height: first.height,
          mediumWidth: first.mediumWidth,
          likeCount: 0,
          commentCount: 0,
          createdAt,
          username: user.username,
          pictureKey,
          liked: 0,
          photoCount: stored.length,
          editedAt: null,
          mentions,
          // The author always sees their own photo ('1'), as posts-repository.ts's SENSITIVITY writes it.
          sensitivity: draft.sensitivity ? `1${JSON.stringify([draft.sensitivity.warning, blurKey])}` : null,
        },
        [],
        user.id,
        more.map((f, i) => ({ ...f, postId: postid, position: i + 1 })),
      ),
    };
  }
}

export type PostWritesService = ReturnType<typeof createPostWritesService>;
