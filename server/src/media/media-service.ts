import { randomBytes, randomUUID } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../kernel/config.js';
import { cleanAltText, cleanCaption } from '../posts/post-text.js';
import { accountGone } from '../kernel/live-user.js';
import type { AuthUser } from '../people/users-repository.js';
import {
  badRequest,
  conflict,
  forbidden,
  HttpError,
  notFound,
  payloadTooLarge,
  unsupportedMediaType,
} from '../kernel/errors.js';
import type { Limiter } from './images/limiter.js';
import { processImage } from './images/pipeline.js';
import { isLocalStorage } from '../kernel/storage/local.js';
import type { Storage } from '../kernel/storage/storage.js';
import type { DeletedPost, MediaRepository, NewPhoto, UploadRow } from './media-repository.js';
import { createPageWriter } from '../posts/page-json.js';
import { ALBUM_MAX_PHOTOS } from '../kernel/limits.js';
import { allMediaKeys, displayKey, mediaUrls, mediumKey, thumbKey } from '../kernel/storage/media-keys.js';

/** image/jpeg, image/svg+xml, image/vnd.microsoft.icon…; the content is checked for real later. */
const IMAGE_TYPE = /^image\/[a-z0-9.+-]+$/i;
export const UPLOAD_KEY = /^uploads\/(\d{1,15})\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** What create-post takes (media/media-routes.ts): one photo by `s3Key`, or an album by `photos`. */
export interface CreatePostBody {
  s3Key?: string;
  photos?: { s3Key: string; altText?: string }[];
  caption?: string;
  altText?: string;
  isAnonymous?: boolean;
  isProfilePicture?: boolean;
}

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

/** The new post as JSON text of the Post schema, written by the Post writer (posts/page-json.ts). */
export interface CreatedPost {
  json: string;
}

export interface MediaServiceDeps {
  config: Config;
  storage: Storage;
  repo: MediaRepository;
  limiter: Limiter;
  log: FastifyBaseLogger;
  now?: () => number;
}

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

/** A size as people read it: 512 KB, 3.4 MB, 1 GB. */
export function readableBytes(bytes: number): string {
  const units: [number, string][] = [[1024 ** 3, 'GB'], [1024 ** 2, 'MB'], [1024, 'KB']];
  for (const [size, unit] of units) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}

/** 413 for a user whose stored images would pass their quota. */
export const quotaExceeded = (quota: number, used: number, needed?: number, headers?: Record<string, string>, subject = 'this photo needs') =>
  new HttpError(
    413,
    'storage_quota_exceeded',
    needed === undefined
      ? `Your storage is full: you use ${readableBytes(used)} of your ${readableBytes(quota)}. Delete some posts to make room.`
      : `Not enough storage left: ${subject} ${readableBytes(needed)}, and ${readableBytes(Math.max(0, quota - used))} of your ${readableBytes(quota)} is free. Delete some posts to make room.`,
    headers,
  );

const tooLarge = (max: number) =>
  // Connection: close, so the client stops sending instead of us reading the rest.
  new HttpError(413, 'payload_too_large', `The file is larger than the ${mb(max)} allowed.`, { connection: 'close' });

/**
 * Passes the request body through, failing with 413 as soon as it passes `max`
 * bytes. The request itself is only unpiped, never destroyed, so the client
 * still receives the 413 answer.
 */
function capBody(body: Readable, max: number, counter: { bytes: number }, tooBig: () => Error = () => tooLarge(max)): Transform {
  const capped = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      counter.bytes += chunk.length;
      if (counter.bytes > max) callback(tooBig());
      else callback(null, chunk);
    },
  });
  body.on('error', (err) => capped.destroy(err));
  body.on('close', () => {
    if ('complete' in body && !body.complete) capped.destroy(new Error('the upload was interrupted'));
  });
  body.pipe(capped);
  return capped;
}

export function createMediaService(deps: MediaServiceDeps) {
  const { config, storage, repo, limiter, log } = deps;
  const now = deps.now ?? Date.now;
  const { maxBytes, maxPixels, urlTtlSeconds, quotaBytes } = config.uploads;
  // One post at a time, never shown again from here: nothing worth keeping.
  const writer = createPageWriter(1, 1);
  /** Keys being received right now (one PUT per key, even at the same instant). */
  const receiving = new Set<string>();
  /** Bytes being received right now per user (the quota holds them as if stored). */
  const arriving = new Map<number, number>();

  /**
   * The raw upload's bytes. Removing the account deletes them (and the row) while the image
   * may still wait for the limiter: that is the caller's account gone (401) or the upload gone
   * (404), not a failure of ours.
   */
  async function readRaw(key: string, userId: number) {
    if (!repo.userExists(userId)) throw accountGone();
    try {
      return await storage.read(key);
    } catch (err) {
      if (!repo.userExists(userId)) throw accountGone();
      if (!repo.findUpload(key)) throw notFound('This upload no longer exists: start the upload again.');
      throw err;
    }
  }

  async function removeQuietly(key: string) {
    try {
      await storage.delete(key);
    } catch (err) {
      log.warn({ err: (err as Error).message, key }, 'could not remove a stored file');
    }
  }

  return {
    async presignUpload(user: AuthUser, fileType: string, isProfilePicture: boolean) {
      if (!IMAGE_TYPE.test(fileType)) {
        throw unsupportedMediaType('Only images can be uploaded: fileType must be an image type such as image/jpeg.');
      }
      const contentType = fileType.toLowerCase();
      if (quotaBytes > 0) {
        const used = repo.storageUsed(user.id);
        if (used >= quotaBytes) throw quotaExceeded(quotaBytes, used);
      }
      // The client's file name is never used in a key or a path.
      const s3Key = `uploads/${user.id}/${randomUUID()}`;
      const uploadUrl = await storage.presignPut(s3Key, contentType, urlTtlSeconds);
      const at = now();
      repo.insertUpload(s3Key, user.id, contentType, isProfilePicture, at, at + urlTtlSeconds * 1000);
      return { uploadUrl, s3Key };
    },

    /** The local driver's upload endpoint: checks the signed URL, then streams the body to storage. */
    async receiveUpload(input: {
      key: string;
      ct: string;
      exp: string;
      sig: string;
      contentType: string | undefined;
      contentLength: string | undefined;
      body: Readable;
    }) {
      if (!isLocalStorage(storage)) throw notFound('Uploads go straight to the storage server.');
      const check = storage.verifyPut(input.key, input.ct, input.exp, input.sig, now());
      if (check === 'invalid') throw forbidden('This upload link is not valid.');
      if (check === 'expired') throw forbidden('This upload link has expired: start the upload again.');
      const sent = (input.contentType ?? '').split(';')[0]!.trim().toLowerCase();
      if (sent !== input.ct) {
        throw unsupportedMediaType(`The Content-Type must be ${input.ct}, the type this upload link was made for.`);
      }
      if (input.contentLength !== undefined && Number(input.contentLength) > maxBytes) throw tooLarge(maxBytes);
      const row = repo.findUpload(input.key);
      if (!row) throw notFound('This upload no longer exists: start the upload again.');
      if (row.status !== 'pending' || receiving.has(input.key)) {
        throw conflict('This upload link was already used: start the upload again.');
      }
      // Raw bytes waiting to become a post (and those arriving now) count against the quota too:
      // a full account cannot park raw files. Their own size is not held against the room
      // left (a phone photo is far bigger than the images kept of it); create-post checks those.
      const reserve = input.contentLength !== undefined && Number(input.contentLength) > 0 ? Number(input.contentLength) : maxBytes;
      if (quotaBytes > 0) {
        const used = repo.storageUsed(row.userId) + (arriving.get(row.userId) ?? 0);
        if (used >= quotaBytes) throw quotaExceeded(quotaBytes, used, undefined, { connection: 'close' });
      }
      receiving.add(input.key);
      arriving.set(row.userId, (arriving.get(row.userId) ?? 0) + reserve);
      try {
        const counter = { bytes: 0 };
        // Streamed to a temp file and renamed into place; a failure leaves nothing behind.
        await storage.write(input.key, capBody(input.body, maxBytes, counter), input.ct);
        let marked: ReturnType<MediaRepository['markUploaded']>;
        try {
          // Checks that the owner still exists and is not suspended, in the same transaction.
          marked = repo.markUploaded(input.key, counter.bytes);
        } catch (err) {
          await removeQuietly(input.key);
          throw err;
        }
        if (marked !== 'ok') {
          // The row went while the bytes arrived (the account removed, or the upload swept): nothing stays behind.
          await removeQuietly(input.key);
          if (marked === 'gone') throw notFound('This upload no longer exists: start the upload again.');
          throw conflict('This upload was cancelled: start the upload again.');
        }
        return { ok: true as const };
      } finally {
        receiving.delete(input.key);
        const left = (arriving.get(row.userId) ?? 0) - reserve;
        if (left > 0) arriving.set(row.userId, left);
        else arriving.delete(row.userId);
      }
    },

    async createPost(user: AuthUser, body: CreatePostBody): Promise<CreatedPost | { profilePictureUrl: string }> {
      const isProfilePicture = body.isProfilePicture === true;
      const isAnonymous = !isProfilePicture && body.isAnonymous === true;
      const items = photosOf(body, isProfilePicture);
      const album = body.photos !== undefined;
      let caption = '';
      if (!isProfilePicture) {
        if (body.caption === undefined) throw badRequest('A caption is required.');
        caption = cleanCaption(body.caption);
      }
      // "Photo 3 of 5: …" in an album's answers, so the person knows which one to change.
      const which = (i: number, message: string) => (album ? `Photo ${i + 1} of ${items.length}: ${message}` : message);
      const altTexts = items.map((item, i) => {
        if (isProfilePicture) return '';
        try {
          return cleanAltText(item.altText);
        } catch (err) {
          throw err instanceof HttpError ? badRequest(which(i, err.message)) : err;
        }
      });

      // Every upload is checked before any is claimed: a refused album changes nothing.
      const rows: UploadRow[] = [];
      for (const [i, item] of items.entries()) {
        const fail = (make: (message: string) => HttpError, message: string) => make(which(i, message));
        // Validate the key's shape first so nothing a client sends reaches storage unchecked.
        const match = UPLOAD_KEY.exec(item.s3Key);
        const row = match ? repo.findUpload(item.s3Key) : undefined;
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
        if (repo.markUploaded(row.key, stored.size) === 'gone') throw notFound(which(i, 'No such upload: upload the file first.'));
      }
      // Inside its transaction: the caller still exists and is not suspended (401 or 403 otherwise).
      const claimed: string[] = [];
      for (const [i, row] of rows.entries()) {
        let ok: boolean;
        try {
          ok = repo.claimUpload(row.key, user.id);
        } catch (err) {
          for (const key of claimed) repo.releaseUpload(key);
          throw err;
        }
        if (!ok) {
          for (const key of claimed) repo.releaseUpload(key);
          if (!repo.findUpload(row.key)) throw notFound(which(i, 'No such upload: upload the file first.'));
          throw conflict(which(i, 'This upload was already used for a post.'));
        }
        claimed.push(row.key);
      }

      const photos: (NewPhoto & { storedBytes: number })[] = [];
      /** Media keys whose images may have been written: all removed unless the post is made. */
      const written: string[] = [];
      let postid: number;
      const createdAt = now();
      let current = 0;
      // Not about one photo: the whole album is refused, and its uploads with it (they would take the room too).
      const overQuota = (used: number, needed: number) => {
        current = -1;
        return quotaExceeded(quotaBytes, used, needed, undefined, album ? 'this album needs at least' : 'this photo needs');
      };
      try {
        for (const [i, row] of rows.entries()) {
          current = i;
          const size = repo.findUpload(row.key)?.size ?? 0;
          if (size > maxBytes) throw payloadTooLarge(`The file is larger than the ${mb(maxBytes)} allowed.`);
          // One photo at a time through the limiter: an album takes no more of the image jobs than a post.
          const processed = await limiter.run(async () => processImage(await readRaw(row.key, user.id), { maxPixels, maxBytes }));
          // The quota counts what is stored: the processed images (this upload's raw bytes no longer count).
          const storedBytes = processed.display.length + processed.thumb.length + (processed.medium?.data.length ?? 0);
          const albumBytes = photos.reduce((sum, f) => sum + f.storedBytes, 0) + storedBytes;
          if (quotaBytes > 0) {
            // Early, to spare the storage writes; the insert below checks again, atomically.
            const used = repo.storageUsed(user.id);
            if (used + albumBytes > quotaBytes) throw overQuota(used, albumBytes);
          }
          const mediaKey = randomBytes(16).toString('base64url');
          // Listed before the first write: whatever of them lands is removed if the post is not made.
          written.push(mediaKey);
          await storage.write(displayKey(mediaKey), processed.display, 'image/webp');
          await storage.write(thumbKey(mediaKey), processed.thumb, 'image/webp');
          if (processed.medium) await storage.write(mediumKey(mediaKey), processed.medium.data, 'image/webp');
          photos.push({
            mediaKey,
            width: processed.width,
            height: processed.height,
            mediumWidth: processed.medium?.width ?? 0,
            altText: altTexts[i]!,
            storedBytes,
          });
        }
        current = -1;
        const [first, ...more] = photos as [NewPhoto & { storedBytes: number }, ...(NewPhoto & { storedBytes: number })[]];
        const storedBytes = photos.reduce((sum, f) => sum + f.storedBytes, 0);
        // Only now that every image is stored does the post (and its counters) exist, and only if its
        // author still exists, is not suspended and has room: one transaction checks all three.
        const inserted = repo.insertPost({
          userId: user.id,
          caption,
          altText: first.altText,
          isAnonymous,
          isProfilePicture,
          mediaKey: first.mediaKey,
          width: first.width,
          height: first.height,
          mediumWidth: first.mediumWidth,
          createdAt,
          storedBytes,
          morePhotos: more.map(({ storedBytes: _bytes, ...photo }) => photo),
        }, quotaBytes);
        if ('overQuota' in inserted) throw overQuota(inserted.overQuota, storedBytes);
        postid = inserted.id;
      } catch (err) {
        // No post: none of its images stays (an album whose third photo fails keeps neither the first two).
        for (const mediaKey of written) for (const key of allMediaKeys(mediaKey)) await removeQuietly(key);
        const quota = err instanceof HttpError && err.code === 'storage_quota_exceeded';
        for (const [i, row] of rows.entries()) {
          if (quota || (i === current && err instanceof HttpError && err.statusCode !== 503)) {
            // Not an image, too big, damaged: the raw bytes are of no use to anyone.
            await removeQuietly(row.key);
            repo.deleteUpload(row.key);
          } else {
            // Busy, our own failure, or another photo's fault: the upload stays usable so the user can retry.
            repo.releaseUpload(row.key);
          }
        }
        if (err instanceof HttpError && current >= 0) throw new HttpError(err.statusCode, err.code, which(current, err.message), err.headers);
        throw err;
      }
      for (const row of rows) await removeQuietly(row.key);

      const [first, ...more] = photos.map(({ storedBytes: _bytes, ...photo }) => photo) as [NewPhoto, ...NewPhoto[]];
      const urls = mediaUrls(first.mediaKey);
      if (isProfilePicture) return { profilePictureUrl: urls.thumbnailUrl };
      // The same Post every feed gives its author, by the same writer (posts/page-json.ts).
      const pictureKey = isAnonymous ? null : repo.profilePictureKey(user.id);
      return {
        json: writer.post(
          {
            id: postid,
            userId: user.id,
            caption,
            altText: first.altText,
            isAnonymous: isAnonymous ? 1 : 0,
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
            photoCount: photos.length,
            editedAt: null,
          },
          [],
          user.id,
          more.map((f, i) => ({ ...f, postId: postid, position: i + 1 })),
        ),
      };
    },

    /** What the user's images and waiting uploads take, and their quota (0: none). */
    storage(user: AuthUser) {
      return { usedBytes: repo.storageUsed(user.id), quotaBytes };
    },

    /** A processed image to serve, or null when there is none. */
    async openMedia(key: string) {
      const found = await storage.stat(key);
      if (!found) return null;
      try {
        return { size: found.size, stream: await storage.read(key) };
      } catch {
        return null; // deleted between stat and read
      }
    },

    async deletePost(user: AuthUser, postId: number) {
      return removePost(postId, user.id);
    },

    /** An operator's removal: `record` writes the action in the deleting transaction. */
    async removePostAsOperator(postId: number, record: (post: DeletedPost) => void) {
      return removePost(postId, null, record);
    },
  };

  // Declared after the service's return: hoisted, shared by the author's delete and an operator's removal.
  async function removePost(postId: number, userId: number | null, record?: (post: DeletedPost) => void) {
    const result = repo.deletePost(postId, userId, record);
    if (result.outcome === 'not_found') throw notFound('No such post.');
    if (result.outcome === 'forbidden') throw forbidden('Only the author can delete this post.');
    // After the commit: a crash here leaves unreferenced files, never a post without its image.
    for (const mediaKey of [result.post.mediaKey, ...result.post.moreMediaKeys]) for (const key of allMediaKeys(mediaKey)) await removeQuietly(key);
    return { deleted: true as const };
  }
}

export type MediaService = ReturnType<typeof createMediaService>;
