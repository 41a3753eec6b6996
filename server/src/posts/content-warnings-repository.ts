import type Database from 'better-sqlite3';
import type { PhotoRow } from '../kernel/views.js';
import { prepareVisiblePost } from './posts-repository.js';

/** A post as marking it sensitive needs it: whose, which photo to blur, and whether one is made. */
export interface SensitivityRow {
  userId: number;
  mediaKey: string;
  blurKey: string | null;
  sensitive: number;
  contentWarning: string;
  isProfilePicture: number;
  hidden: number;
  caption: string;
}

/** A post's photo itself, for "Show photo" (GET /api/post-photo). */
export interface PhotoOfPost {
  mediaKey: string;
  width: number;
  height: number;
  mediumWidth: number;
  altText: string;
  photoCount: number;
}

/**
 * The SQL of content warnings (docs/api.md, "Content warnings"): posts.sensitive, content_warning
 * and blur_key, and users.show_sensitive. Every write here runs inside the caller's transaction.
 */
export function createContentWarningsRepository(sqlite: Database.Database) {
  const row = sqlite.prepare<[number], SensitivityRow>(`
    SELECT user_id AS userId, media_key AS mediaKey, blur_key AS blurKey, sensitive, content_warning AS contentWarning,
      is_profile_picture AS isProfilePicture, hidden, caption
    FROM posts WHERE id = ?`);
  // A blurred image made earlier is kept: marking it sensitive again needs no new one.
  const set = sqlite.prepare<{ post: number; sensitive: number; warning: string; blurKey: string | null }>(`
    UPDATE posts SET sensitive = @sensitive, content_warning = @warning, blur_key = coalesce(blur_key, @blurKey) WHERE id = @post`);
  const visible = prepareVisiblePost(sqlite);
  const photo = sqlite.prepare<[number], PhotoOfPost>(`
    SELECT media_key AS mediaKey, width, height, medium_width AS mediumWidth, alt_text AS altText, photo_count AS photoCount
    FROM posts WHERE id = ?`);
  const album = sqlite.prepare<[number], PhotoRow>(`
    SELECT post_id AS postId, position, media_key AS mediaKey, width, height, medium_width AS mediumWidth, alt_text AS altText
    FROM post_photos WHERE post_id = ? ORDER BY position`);
  const showSensitive = sqlite.prepare<[number], number>('SELECT show_sensitive FROM users WHERE id = ?').pluck();
  const setShowSensitive = sqlite.prepare<[number, number]>('UPDATE users SET show_sensitive = ? WHERE id = ?');

  return {
    row: (postId: number) => row.get(postId),
    /** Inside the caller's transaction; `blurKey` is used only when the post has none yet. */
    set: (postId: number, sensitive: boolean, warning: string, blurKey: string | null) =>
      set.run({ post: postId, sensitive: sensitive ? 1 : 0, warning, blurKey }),
    /** The photo (and an album's others) of a post `viewer` may see (posts-repository.ts's rule), or undefined. */
    photoFor: sqlite.transaction((postId: number, viewer: number) => {
      if (!visible.get({ post: postId, viewer })) return undefined;
      const first = photo.get(postId)!;
      return { first, album: first.photoCount > 1 ? album.all(postId) : [] };
    }),
    alwaysShows: (userId: number) => showSensitive.get(userId) === 1,
    setAlwaysShows: (userId: number, on: boolean) => setShowSensitive.run(on ? 1 : 0, userId),
  };
}

export type ContentWarningsRepository = ReturnType<typeof createContentWarningsRepository>;
