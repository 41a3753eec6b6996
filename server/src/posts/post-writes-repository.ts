import type Database from 'better-sqlite3';
import type { Shared } from '../kernel/shared.js';
import { prepareVisiblePost } from './posts-repository.js';
import type { CaptionWrite } from './post-captions.js';

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
  /** Received from another server (federation): its caption mentions no one here (post-captions.ts). */
  fromAnotherServer?: boolean;
  /** Run in the insert's transaction with the new post's id (federation keeps the post's address with it). */
  onInserted?: (id: number) => void;
  /** An album's photos after the first, in order (empty: a single photo). */
  morePhotos?: NewPhoto[];
  /** Marked sensitive when posted: its warning and its first photo's blurred image (posts/content-warnings-service.ts). */
  sensitive?: { warning: string; blurKey: string };
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
  /** Its blurred image's key (posts.blur_key), deleted after the commit too; null: none. */
  blurKey: string | null;
}

/**
 * The write side of a post: its row, its album's photos and its counters in one IMMEDIATE
 * transaction on create, and on delete (the author's or an operator's). `storageUsed` is the
 * quota's count (media/media-repository.ts: the posts' images and the waiting uploads), read
 * inside the insert's transaction.
 */
export function createPostWritesRepository(
  sqlite: Database.Database,
  { counters, live }: Shared,
  storageUsed: (userId: number) => number,
  onCaption: (write: CaptionWrite) => string | null = () => null,
) {
  const insertPostStmt = sqlite.prepare<[number, string, string, number, number, string, number, number, number, number, number, number], { id: number }>(
    `INSERT INTO posts (user_id, caption, alt_text, is_anonymous, is_profile_picture, media_key, width, height, medium_width, created_at, stored_bytes, photo_count)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const insertPhotoStmt = sqlite.prepare<[number, number, string, number, number, number, string]>(
    `INSERT INTO post_photos (post_id, position, media_key, width, height, medium_width, alt_text) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const morePhotoKeys = sqlite.prepare<[number], string>('SELECT media_key FROM post_photos WHERE post_id = ? ORDER BY position').pluck();
  const setPictureStmt = sqlite.prepare<[string | null, number]>('UPDATE users SET profile_picture_key = ? WHERE id = ?');
  const pictureKeyStmt = sqlite.prepare<[number], { key: string | null }>(
    'SELECT profile_picture_key AS key FROM users WHERE id = ?',
  );

  const postForDelete = sqlite.prepare<
    [number],
    Omit<DeletedPost, 'moreMediaKeys'> & { likeCount: number; commentCount: number }
  >(
    `SELECT id, user_id AS userId, media_key AS mediaKey, is_profile_picture AS isProfilePicture,
            is_anonymous AS isAnonymous, like_count AS likeCount, comment_count AS commentCount, caption, blur_key AS blurKey
     FROM posts WHERE id = ?`,
  );
  const deletePostStmt = sqlite.prepare<[number]>('DELETE FROM posts WHERE id = ?');
  const markSensitiveStmt = sqlite.prepare<[string, string, number]>('UPDATE posts SET sensitive = 1, content_warning = ?, blur_key = ? WHERE id = ?');
  const visiblePost = prepareVisiblePost(sqlite);
  // users.post_count and the rest, and the author's bell (kernel/counters.ts).
  const clearPictureStmt = sqlite.prepare<[number, string]>(
    'UPDATE users SET profile_picture_key = NULL WHERE id = ? AND profile_picture_key = ?',
  );


  /**
   * The post and its counters, if its author still exists, is not suspended and has room:
   * the quota is checked in the same IMMEDIATE transaction as the insert, so parallel
   * create-posts cannot each see the same room left (0: no quota).
   */
  const insertPost = sqlite.transaction((post: NewPost, quotaBytes: number): { id: number; mentions: string | null } | { overQuota: number } => {
    live.assert(post.userId);
    if (quotaBytes > 0) {
      const used = storageUsed(post.userId);
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
    if (post.sensitive) markSensitiveStmt.run(post.sensitive.warning, post.sensitive.blurKey, id);
    // Profile pictures are posts too, but never shown in feeds nor counted.
    // Its tags and mentions (posts.mentions, for the answer) from the caption's listeners (post-captions.ts).
    let mentions: string | null = null;
    if (post.isProfilePicture) setPictureStmt.run(post.mediaKey, post.userId);
    else {
      counters.postCreated(post.userId, post.isAnonymous);
      mentions = onCaption({
        postId: id,
        userId: post.userId,
        isAnonymous: post.isAnonymous,
        caption: post.caption,
        at: post.createdAt,
        created: true,
        fromAnotherServer: post.fromAnotherServer === true,
      });
    }
    post.onInserted?.(id);
    return { id, mentions };
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
        blurKey: post.blurKey,
      },
    };
  });

  return {
    /** The new post's id, or what the author's storage held when this post would pass `quotaBytes`; 401/403 unless live. */
    insertPost: (post: NewPost, quotaBytes: number) => insertPost.immediate(post, quotaBytes),
    profilePictureKey: (userId: number) => pictureKeyStmt.get(userId)?.key ?? null,
    deletePost: (postId: number, userId: number | null, record?: (post: DeletedPost) => void) => deletePost.immediate(postId, userId, record),
  };
}

export type PostWritesRepository = ReturnType<typeof createPostWritesRepository>;
