import { randomUUID } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../kernel/config.js';
import { accountGone } from '../kernel/live-user.js';
import type { AuthUser } from '../people/users-repository.js';
import { conflict, forbidden, HttpError, notFound, unsupportedMediaType } from '../kernel/errors.js';
import { isLocalStorage } from '../kernel/storage/local.js';
import type { Storage } from '../kernel/storage/storage.js';
import type { MediaRepository } from './media-repository.js';
import { readableBytes } from '../contract/format.js';

/** image/jpeg, image/svg+xml, image/vnd.microsoft.icon…; the content is checked for real later. */
const IMAGE_TYPE = /^image\/[a-z0-9.+-]+$/i;
export const UPLOAD_KEY = /^uploads\/(\d{1,15})\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export interface MediaServiceDeps {
  config: Config;
  storage: Storage;
  repo: MediaRepository;
  log: FastifyBaseLogger;
  now?: () => number;
}

/** A size limit in words: "10 MB". */
export const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`;

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
  const { config, storage, repo, log } = deps;
  const now = deps.now ?? Date.now;
  const { maxBytes, urlTtlSeconds, quotaBytes } = config.uploads;
  /** Keys being received right now (one PUT per key, even at the same instant). */
  const receiving = new Set<string>();
  /** Bytes being received right now per user (the quota holds them as if stored). */
  const arriving = new Map<number, number>();

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

    /**
     * An upload's raw bytes, for the post being made of it (posts/post-writes-service.ts). Removing the
     * account deletes them (and the row) while the image may still wait for the limiter: that is the
     * caller's account gone (401) or the upload gone (404), not a failure of ours.
     */
    readUpload: readRaw,
    /** Deletes a stored file, logging (never throwing) when it cannot: a leftover is swept or logged, not an error. */
    removeStored: removeQuietly,
  };
}

export type MediaService = ReturnType<typeof createMediaService>;
