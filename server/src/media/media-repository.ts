import type Database from 'better-sqlite3';
import { limitBy } from '../kernel/db/rows.js';
import { createLiveUserCheck } from '../kernel/live-user.js';
import { createCounters } from '../kernel/counters.js';
import { prepareVisiblePost } from '../posts/posts-repository.js';

export type UploadStatus = 'pending' | 'uploaded' | 'used';

export interface UploadRow {
  key: string;
  userId: number;
  contentType: string;
  isProfilePicture: number;
  status: UploadStatus;
  size: number | null;
  createdAt: number;
  expiresAt: number;
}

export interface NewPost {
  userId: number;
  caption: string;
  /** '' when the author gave no description. */
  altText: string;
  isAnonymous: boolean;
  isProfilePicture: boolean;
  mediaKey: string;
  width: number;
  height: number;
  /** Width of its medium rendition, 0 when it has none. */
  mediumWidth: number;
  createdAt: number;
  /** Bytes its processed images take in storage, every photo's of an album. */
  storedBytes: number;
  /** An album's photos after the first, in order (empty: a single photo). */
  morePhotos?: NewPhoto[];
}

/** An album's photo after the first (post_photos). */
export interface NewPhoto {
  mediaKey: string;
  width: number;
  height: number;
  mediumWidth: number;
  altText: string;
}

export interface DeletedPost {
  id: number;
  userId: number;
  mediaKey: string;
  /** An album's other photos' media keys (their files go after the commit too). */
  moreMediaKeys: string[];
  isProfilePicture: number;
  isAnonymous: number;
  caption: string;
}

/**
 * The write side of uploads and posts. Every multi-row change is one
 * IMMEDIATE transaction so counters never drift from the rows they count.
 */
export function createMediaRepository(sqlite: Database.Database) {
  const insertUploadStmt = sqlite.prepare<[string, number, string, number, number, number]>(
    `INSERT INTO uploads (key, user_id, content_type, is_profile_picture, status, created_at, expires_at)
     VALUES (?, ?, ?, ?, 'pending', ?, ?)`,
  );
  const uploadByKey = sqlite.prepare<[string], UploadRow>(
    `SELECT key, user_id AS userId, content_type AS contentType, is_profile_picture AS isProfilePicture,
            status, size, created_at AS createdAt, expires_at AS expiresAt
     FROM uploads WHERE key = ?`,
  );
  const markUploadedStmt = sqlite.prepare<[number, string]>(
    `UPDATE uploads SET status = 'uploaded', size = ? WHERE key = ? AND status = 'pending'`,
  );
  const claimStmt = sqlite.prepare<[string, number]>(
    `UPDATE uploads SET status = 'used' WHERE key = ? AND user_id = ? AND status = 'uploaded'`,
  );
  const releaseStmt = sqlite.prepare<[string]>(`UPDATE uploads SET status = 'uploaded' WHERE key = ? AND status = 'used'`);
  const deleteUploadStmt = sqlite.prepare<[string]>('DELETE FROM uploads WHERE key = ?');
  const deleteUploadIfStmt = sqlite.prepare<[string, string, number]>(
    'DELETE FROM uploads WHERE key = ? AND status = ? AND created_at = ?',
  );
  const staleUploadsStmt = sqlite.prepare<[number, number], UploadRow>(
    `SELECT key, user_id AS userId, content_type AS contentType, is_profile_picture AS isProfilePicture,
            status, size, created_at AS createdAt, expires_at AS expiresAt
     FROM uploads WHERE status IN ('pending', 'uploaded', 'used') AND created_at < ? ORDER BY created_at ${limitBy('?')}`,
  );
  const uploadExists = sqlite.prepare<[string], { one: number }>('SELECT 1 AS one FROM uploads WHERE key = ?');

  const insertPostStmt = sqlite.prepare<[number, string, string, number, number, string, number, number, number, number, number, number], { id: number }>(
    `INSERT INTO posts (user_id, caption, alt_text, is_anonymous, is_profile_picture, media_key, width, height, medium_width, created_at, stored_bytes, photo_count)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const insertPhotoStmt = sqlite.prepare<[number, number, string, number, number, number, string]>(
    `INSERT INTO post_photos (post_id, position, media_key, width, height, medium_width, alt_text) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const morePhotoKeys = sqlite.prepare<[number], string>('SELECT media_key FROM post_photos WHERE post_id = ? ORDER BY position').pluck();
  // The author's own, visible post only: anyone else's (or a profile picture) changes nothing.
  // What the user's quota counts: their posts' images and raw uploads waiting to become posts.
  const storageUsedStmt = sqlite.prepare<[number, number], number>(
    `SELECT (SELECT coalesce(sum(stored_bytes), 0) FROM posts WHERE user_id = ?)
          + (SELECT coalesce(sum(size), 0) FROM uploads WHERE user_id = ? AND status = 'uploaded')`,
  ).pluck();
  const setPictureStmt = sqlite.prepare<[string | null, number]>('UPDATE users SET profile_picture_key = ? WHERE id = ?');
  const pictureKeyStmt = sqlite.prepare<[number], { key: string | null }>(
    'SELECT profile_picture_key AS key FROM users WHERE id = ?',
  );

  const postForDelete = sqlite.prepare<
    [number],
    Omit<DeletedPost, 'moreMediaKeys'> & { likeCount: number; commentCount: number }
  >(
    `SELECT id, user_id AS userId, media_key AS mediaKey, is_profile_picture AS isProfilePicture,
            is_anonymous AS isAnonymous, like_count AS likeCount, comment_count AS commentCount, caption
     FROM posts WHERE id = ?`,
  );
  const deletePostStmt = sqlite.prepare<[number]>('DELETE FROM posts WHERE id = ?');
  const visiblePost = prepareVisiblePost(sqlite);
  // users.post_count and the rest, and the author's bell (kernel/counters.ts).
  const counters = createCounters(sqlite);
  const clearPictureStmt = sqlite.prepare<[number, string]>(
    'UPDATE users SET profile_picture_key = NULL WHERE id = ? AND profile_picture_key = ?',
  );

  const live = createLiveUserCheck(sqlite);

  /**
   * The post and its counters, if its author still exists, is not suspended and has room:
   * the quota is checked in the same IMMEDIATE transaction as the insert, so parallel
   * create-posts cannot each see the same room left (0: no quota).
   */
  const insertPost = sqlite.transaction((post: NewPost, quotaBytes: number): { id: number } | { overQuota: number } => {
    live.assert(post.userId);
    if (quotaBytes > 0) {
      const used = storageUsedStmt.get(post.userId, post.userId) ?? 0;
      if (used + post.storedBytes > quotaBytes) return { overQuota: used };
    }
    const { id } = insertPostStmt.get(
      post.userId,
      post.caption,
      post.altText,
      post.isAnonymous ? 1 : 0,
      post.isProfilePicture ? 1 : 0,
      post.mediaKey,
      post.width,
      post.height,
      post.mediumWidth,
      post.createdAt,
      post.storedBytes,
      1 + (post.morePhotos?.length ?? 0),
    )!;
    post.morePhotos?.forEach((f, i) => insertPhotoStmt.run(id, i + 1, f.mediaKey, f.width, f.height, f.mediumWidth, f.altText));
    // Profile pictures are posts too, but never shown in feeds nor counted.
    if (post.isProfilePicture) setPictureStmt.run(post.mediaKey, post.userId);
    else counters.postCreated(post.userId, post.isAnonymous);
    return { id };
  });

  const insertUpload = sqlite.transaction(
    (key: string, userId: number, contentType: string, isProfilePicture: boolean, now: number, expiresAt: number) => {
      live.assert(userId);
      insertUploadStmt.run(key, userId, contentType, isProfilePicture ? 1 : 0, now, expiresAt);
    },
  );
  /** pending → uploaded, for a live owner: 'gone' when the row is (its account removed, or swept). */
  const markUploaded = sqlite.transaction((key: string, size: number): 'ok' | 'gone' | 'not_pending' => {
    const row = uploadByKey.get(key);
    if (!row) return 'gone';
    live.assert(row.userId);
    return markUploadedStmt.run(size, key).changes === 1 ? 'ok' : 'not_pending';
  });
  const claim = sqlite.transaction((key: string, userId: number): boolean => {
    live.assert(userId);
    return claimStmt.run(key, userId).changes === 1;
  });
  type DeleteResult = { outcome: 'deleted'; post: DeletedPost } | { outcome: 'not_found' } | { outcome: 'forbidden' };
  /** `userId` null: an operator's removal, with `record` run in the same transaction (moderation/moderation-repository.ts). */
  const deletePost = sqlite.transaction((postId: number, userId: number | null, record?: (post: DeletedPost) => void): DeleteResult => {
    if (userId !== null) live.assert(userId);
    const post = postForDelete.get(postId);
    if (!post || (userId === null && post.isProfilePicture)) return { outcome: 'not_found' };
    if (userId !== null && post.userId !== userId) {
      // Someone else's post the caller cannot see (a private account's, across a block, hidden): as if it did not exist.
      return visiblePost.get({ post: postId, viewer: userId }) ? { outcome: 'forbidden' } : { outcome: 'not_found' };
    }
    const moreMediaKeys = morePhotoKeys.all(postId);
    record?.({ ...post, moreMediaKeys });
    counters.postDeleted(post); // its notifications leave the author's bell, the post its counters
    deletePostStmt.run(postId); // likes and comments go with it (ON DELETE CASCADE)
    clearPictureStmt.run(post.userId, post.mediaKey);
    return {
      outcome: 'deleted',
      post: {
        id: post.id,
        userId: post.userId,
        mediaKey: post.mediaKey,
        moreMediaKeys,
        isProfilePicture: post.isProfilePicture,
        isAnonymous: post.isAnonymous,
        caption: post.caption,
      },
    };
  });

  return {
    /** Throws 401 or 403 (kernel/live-user.ts) unless the user is live and not suspended. */
    insertUpload(key: string, userId: number, contentType: string, isProfilePicture: boolean, now: number, expiresAt: number) {
      insertUpload.immediate(key, userId, contentType, isProfilePicture, now, expiresAt);
    },
    findUpload: (key: string) => uploadByKey.get(key),
    /** pending → uploaded; 'gone' when the row is gone, 'not_pending' when it was already received; 403 for a suspended owner. */
    markUploaded: (key: string, size: number) => markUploaded.immediate(key, size),
    /** uploaded → used, for its live owner only; false when someone else got there first. */
    claimUpload: (key: string, userId: number) => claim.immediate(key, userId),
    /** used → uploaded, when making the post failed on our side so the user can retry. */
    releaseUpload: (key: string) => void releaseStmt.run(key),
    deleteUpload: (key: string) => void deleteUploadStmt.run(key),
    /** Removes a row only if it is still what the sweep saw. */
    deleteUploadIfUnchanged: (row: UploadRow) => deleteUploadIfStmt.run(row.key, row.status, row.createdAt).changes === 1,
    staleUploads: (before: number, limit = 500) => staleUploadsStmt.all(before, limit),
    hasUpload: (key: string) => uploadExists.get(key) !== undefined,

    /** The new post's id, or what the author's storage held when this post would pass `quotaBytes`; 401/403 unless live. */
    insertPost: (post: NewPost, quotaBytes: number) => insertPost.immediate(post, quotaBytes),
    /** True when the post is the user's and now has this description. */
    /** Whether the account still exists (removal may run while an image is processed). */
    userExists: (userId: number) => live.exists(userId),
    profilePictureKey: (userId: number) => pictureKeyStmt.get(userId)?.key ?? null,
    /** Bytes the user's images and waiting uploads take in storage. */
    storageUsed: (userId: number) => storageUsedStmt.get(userId, userId) ?? 0,
    deletePost: (postId: number, userId: number | null, record?: (post: DeletedPost) => void) => deletePost.immediate(postId, userId, record),
  };
}

export type MediaRepository = ReturnType<typeof createMediaRepository>;
