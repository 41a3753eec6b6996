import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type Database from 'better-sqlite3';
import type { FastifyBaseLogger } from 'fastify';
import { ZipFile } from 'yazl';
import { displayKey } from '../kernel/storage/media-keys.js';
import type { Storage } from '../kernel/storage/storage.js';
import {
  earlierPictureFile,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  photoFile,
  albumPhotoFile,
  PROFILE_PICTURE_FILE,
  type ExportCommentView,
  type ExportEarlierPictureView,
  type ExportFollowView,
  type ExportLikeView,
  type ExportPostView,
  type ExportProfileView,
} from './export-format.js';
import {
  createExportRepository,
  keysetPages,
  type ExportCommentRow,
  type ExportLikeRow,
  type ExportPostRow,
  type ExportProfileRow,
} from './export-repository.js';
import { authorHidden } from '../kernel/views.js';

export interface ExportDeps {
  sqlite: Database.Database;
  storage: Storage;
  log: Pick<FastifyBaseLogger, 'warn'>;
}

export interface StartedExport {
  /** `shower-beer-<username>-<YYYY-MM-DD>.zip` (the date in UTC). */
  fileName: string;
  username: string;
  /** The zip as it is written: data.json, then one photo at a time. */
  stream: Readable;
}

/** Names of photos that could not be found in storage, kept for the note at the end of the zip. */
const MISSING_LISTED = 100;

const iso = (ms: number) => new Date(ms).toISOString();

/** `shower-beer-<username>-<YYYY-MM-DD>.zip`, the day in UTC; the route makes it safe for the header. */
export function exportFileName(username: string, now: number): string {
  return `shower-beer-${username}-${iso(now).slice(0, 10)}.zip`;
}

/**
 * "Download my data" (GET /api/export): a person's profile, posts, comments,
 * likes and follows as data.json, and their photos, in a zip written with yazl
 * straight into the response. Memory stays flat whatever the account holds:
 * the database is read in keyset pages (export-repository.ts), data.json is
 * written page by page into its zip entry, and photos are added one at a time,
 * each the storage driver's stream, the next opened only when the previous one
 * has been read. Every write waits for the client (backpressure through yazl's
 * pipes); a client that goes away stops the export at its next step.
 *
 * Not one snapshot: each page is read when it is reached. Both passes (data.json,
 * then photos) stop at the last post there was when the export started; a post
 * deleted in between is listed without its photo.
 */
export function createExportService({ sqlite, storage, log }: ExportDeps) {
  const repo = createExportRepository(sqlite);

  const profileView = (p: ExportProfileRow): ExportProfileView => ({
    id: p.id,
    username: p.username,
    email: p.email,
    createdAt: iso(p.createdAt),
    profilePicture: p.pictureKey ? PROFILE_PICTURE_FILE : null,
    suspension: p.suspendedAt === null ? null : { since: iso(p.suspendedAt), reason: p.suspensionReason ?? '' },
    isPrivate: p.isPrivate === 1,
  });
  const orNull = (text: string) => (text === '' ? null : text);
  const postView = (r: ExportPostRow): ExportPostView => ({
    id: r.id,
    createdAt: iso(r.createdAt),
    caption: r.caption,
    altText: r.altText === '' ? null : r.altText,
    isAnonymous: r.isAnonymous === 1,
    width: r.width,
    height: r.height,
    likeCount: r.likeCount,
    commentCount: r.commentCount,
    photo: photoFile(r.id),
    editedAt: r.editedAt === null ? null : iso(r.editedAt),
    earlierVersions: repo.versions(r).map((v) => ({
      createdAt: iso(v.writtenAt),
      caption: v.caption,
      altText: orNull(v.altText),
      photos: [v.altText, ...(JSON.parse(v.photoAlts) as string[])].map((a) => ({ altText: orNull(a) })),
    })),
    photos: [
      { photo: photoFile(r.id), altText: r.altText === '' ? null : r.altText, width: r.width, height: r.height },
      ...repo.albumPhotos(r).map((f) => ({
        photo: albumPhotoFile(r.id, f.position),
        altText: f.altText === '' ? null : f.altText,
        width: f.width,
        height: f.height,
      })),
    ],
  });
  const earlierPictureView = (r: ExportPostRow): ExportEarlierPictureView => ({
    id: r.id,
    createdAt: iso(r.createdAt),
    photo: earlierPictureFile(r.id),
  });
  // Someone else's anonymous post stays anonymous here too (views.ts): the export may be shared.
  const postAuthor = (r: ExportCommentRow | ExportLikeRow, me: number) =>
    authorHidden({ userId: r.postUserId, isAnonymous: r.postIsAnonymous }, me) ? null : r.postAuthor;
  const commentView = (me: number) => (r: ExportCommentRow): ExportCommentView => ({
    id: r.id,
    postId: r.postId,
    postAuthor: postAuthor(r, me),
    createdAt: iso(r.createdAt),
    content: r.content,
  });
  const likeView = (me: number) => (r: ExportLikeRow): ExportLikeView => ({
    postId: r.postId,
    postAuthor: postAuthor(r, me),
    createdAt: iso(r.createdAt),
  });
  const followView = (r: { username: string; createdAt: number }): ExportFollowView => ({
    username: r.username,
    createdAt: iso(r.createdAt),
  });

  /** Writes data.json into `out` page by page, waiting whenever the zip has not taken the last page yet. */
  async function writeData(out: PassThrough, profile: ExportProfileRow, upTo: number, now: number, signal: AbortSignal) {
    const me = profile.id;
    const write = async (text: string) => {
      signal.throwIfAborted();
      if (!out.write(text)) await once(out, 'drain', { signal });
    };
    async function writeList<R, V>(name: string, pages: Iterable<R[]>, view: (row: R) => V, last = false) {
      await write(`  ${JSON.stringify(name)}: [`);
      let first = true;
      for (const page of pages) {
        await write(`${first ? '' : ','}\n    ${page.map((r) => JSON.stringify(view(r))).join(',\n    ')}`);
        first = false;
      }
      await write(`${first ? '' : '\n  '}]${last ? '' : ','}\n`);
    }

    // Written by hand in this order; export-format.ts's ExportData says the same, and the tests hold them together.
    await write(
      `{\n  "format": ${JSON.stringify(EXPORT_FORMAT)},\n  "version": ${EXPORT_VERSION},\n` +
        `  "exportedAt": ${JSON.stringify(iso(now))},\n  "profile": ${JSON.stringify(profileView(profile))},\n`,
    );
    await writeList('posts', keysetPages((after) => repo.posts(me, false, after, upTo), (r) => r.id, 0), postView);
    const earlier = keysetPages((after) => repo.posts(me, true, after, upTo), (r) => r.id, 0);
    await writeList('earlierProfilePictures', withoutCurrent(earlier, profile.pictureKey), earlierPictureView);
    await writeList('comments', keysetPages((after) => repo.comments(me, after), (r) => r.id, 0), commentView(me));
    await writeList('likes', keysetPages((after) => repo.likes(me, after), (r) => r.postId, 0), likeView(me));
    await writeList('following', keysetPages((after) => repo.following(me, after), (r) => r.userId, 0), followView);
    const followerKey = (r: { createdAt: number; userId: number }) => ({ createdAt: r.createdAt, userId: r.userId });
    await writeList('followers', keysetPages((after) => repo.followers(me, after), followerKey, { createdAt: 0, userId: 0 }), followView);
    await writeList('followRequestsSent', keysetPages((after) => repo.requestsSent(me, after), (r) => r.userId, 0), followView);
    await writeList('followRequestsReceived', keysetPages((after) => repo.requestsReceived(me, after), (r) => r.userId, 0), followView, true);
    await write('}\n');
    out.end();
  }

  return {
    /** Starts the export of a live account's data, or null when there is no such account. */
    start(userId: number, now: number = Date.now()): StartedExport | null {
      const profile = repo.profile(userId);
      if (!profile) return null;
      const upTo = repo.lastPostId(userId);
      const zip = new ZipFile();
      const output = zip.outputStream as PassThrough;
      // Fastify destroys the stream when the client goes away; 'close' also follows a normal end, when nothing is left to stop.
      const stop = new AbortController();
      output.once('close', () => stop.abort());
      zip.on('error', (err: Error) => output.destroy(err));
      const missing: string[] = [];
      let missingCount = 0;

      /** Adds one stored image and waits until the zip has read all of it, so one is open at a time. */
      async function addPhoto(key: string, name: string, createdAt: number) {
        let photo: Readable;
        try {
          photo = await storage.read(key);
        } catch (err) {
          // A post whose image is gone (a damaged store) must not make the export impossible: note it and go on.
          if ((await storage.stat(key).catch(() => undefined)) !== null) throw err;
          log.warn({ key, userId }, 'data export: a photo is missing from storage');
          missingCount++;
          if (missing.length < MISSING_LISTED) missing.push(name);
          return;
        }
        if (stop.signal.aborted) {
          photo.destroy();
          stop.signal.throwIfAborted();
        }
        // Photos are WebP already: stored, not deflated again.
        zip.addReadStream(photo, name, { compress: false, mtime: new Date(createdAt) });
        try {
          await finished(photo, { signal: stop.signal });
        } catch (err) {
          photo.destroy();
          throw err;
        }
      }

      const run = async () => {
        const data = new PassThrough();
        zip.addReadStream(data, 'data.json', { mtime: new Date(now) });
        await writeData(data, profile, upTo, now, stop.signal);
        if (profile.pictureKey) await addPhoto(displayKey(profile.pictureKey), PROFILE_PICTURE_FILE, now);
        const earlier = keysetPages((after) => repo.posts(userId, true, after, upTo), (r) => r.id, 0);
        for (const page of withoutCurrent(earlier, profile.pictureKey)) {
          for (const r of page) await addPhoto(displayKey(r.mediaKey), earlierPictureFile(r.id), r.createdAt);
        }
        for (const page of keysetPages((after) => repo.posts(userId, false, after, upTo), (r) => r.id, 0)) {
          for (const r of page) {
            await addPhoto(displayKey(r.mediaKey), photoFile(r.id), r.createdAt);
            for (const f of repo.albumPhotos(r)) await addPhoto(displayKey(f.mediaKey), albumPhotoFile(r.id, f.position), r.createdAt);
          }
        }
        if (missingCount > 0) {
          const more = missingCount > missing.length ? `\n…and ${missingCount - missing.length} more.` : '';
          const note = `These photos could not be found on the server when this export was made:\n${missing.join('\n')}${more}\n`;
          zip.addBuffer(Buffer.from(note), 'missing-photos.txt', { mtime: new Date(now) });
        }
        zip.end();
      };

      run().catch((err: unknown) => {
        // Gone client: nothing to report. Anything else cuts the download, so the person sees it fail.
        if (stop.signal.aborted) return;
        log.warn({ err: (err as Error).message, userId }, 'data export failed');
        output.destroy(err as Error);
      });
      return { fileName: exportFileName(profile.username, now), username: profile.username, stream: output };
    },
  };
}

export type ExportService = ReturnType<typeof createExportService>;

/** Profile-picture posts other than the current picture, which has its own entry. */
function* withoutCurrent(pages: Iterable<ExportPostRow[]>, currentKey: string | null): Generator<ExportPostRow[]> {
  for (const page of pages) {
    const rows = page.filter((r) => r.mediaKey !== currentKey);
    if (rows.length > 0) yield rows;
  }
}
