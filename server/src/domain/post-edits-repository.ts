import type Database from 'better-sqlite3';
import { forbidden, notFound } from '../errors.js';
import { createLiveUserCheck } from './live-user.js';
import type { PostsRepository } from './posts-repository.js';

/** What an edit changes: the caption, and each photo's description (today one photo, index 0). Absent: unchanged. */
export interface PostChanges {
  caption?: string;
  altText?: string;
}

/** A post's text as it stands after an edit (PATCH /api/post's answer). */
export interface EditedPost {
  postid: number;
  caption: string;
  altText: string;
  editedAt: string | null;
}

/** One version of a post's text: what it said from `written_at` on (GET /api/post-versions). */
export interface PostVersionRow {
  caption: string;
  altText: string;
  writtenAt: number;
}

interface EditablePost {
  userId: number;
  caption: string;
  altText: string;
  createdAt: number;
  editedAt: number | null;
  isProfilePicture: number;
  hidden: number;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Edits of a post by its author, and the history they leave (post_versions, migration 0020).
 * An edit and the row keeping what the post said before are one transaction; likes, comments
 * and notifications are rows of their own, by post id, and stay as they are. A version names
 * nobody: who wrote it is the post's author, shown or not by the post's own rules (views.ts).
 */
export function createPostEditsRepository(sqlite: Database.Database, posts: PostsRepository) {
  const live = createLiveUserCheck(sqlite);
  const editable = sqlite.prepare<[number], EditablePost>(`
    SELECT user_id AS userId, caption, alt_text AS altText, created_at AS createdAt, edited_at AS editedAt,
      is_profile_picture AS isProfilePicture, hidden
    FROM posts WHERE id = ?`);
  const keepVersion = sqlite.prepare<{ post: number; caption: string; altText: string; writtenAt: number }>(`
    INSERT INTO post_versions (post_id, caption, alt_text, written_at) VALUES (@post, @caption, @altText, @writtenAt)`);
  const update = sqlite.prepare<{ post: number; caption: string; altText: string; at: number }>(
    'UPDATE posts SET caption = @caption, alt_text = @altText, edited_at = @at WHERE id = @post',
  );
  // Newest first (post_versions_post_idx); the current text is the post row's.
  const earlier = sqlite.prepare<[number], PostVersionRow>(`
    SELECT caption, alt_text AS altText, written_at AS writtenAt FROM post_versions WHERE post_id = ? ORDER BY id DESC`);
  const current = sqlite.prepare<[number], PostVersionRow>(
    'SELECT caption, alt_text AS altText, coalesce(edited_at, created_at) AS writtenAt FROM posts WHERE id = ?',
  );

  const edit = sqlite.transaction((postId: number, userId: number, changes: PostChanges, at: number): EditedPost => {
    // The caller may have been removed or suspended since the request was authenticated.
    live.assert(userId);
    const post = editable.get(postId);
    // Removed (the row is gone), a profile picture, or hidden by an operator's suspension: nothing to edit.
    if (!post || post.isProfilePicture === 1 || post.hidden === 1) throw notFound('This post does not exist.');
    if (post.userId !== userId) throw forbidden('Only the author can edit this post.');
    const caption = changes.caption ?? post.caption;
    const altText = changes.altText ?? post.altText;
    // Saving the same text again is no edit: no "Edited", no version that repeats the current one.
    if (caption === post.caption && altText === post.altText) return { postid: postId, caption, altText, editedAt: iso(post.editedAt) };
    keepVersion.run({ post: postId, caption: post.caption, altText: post.altText, writtenAt: post.editedAt ?? post.createdAt });
    update.run({ post: postId, caption, altText, at });
    return { postid: postId, caption, altText, editedAt: iso(at) };
  });

  return {
    /** The author's edit: 404 for a post that is not there (removed), 403 for someone else's. */
    edit: (postId: number, userId: number, changes: PostChanges, at = Date.now()) => edit.immediate(postId, userId, changes, at),
    /**
     * Every version of a post `viewer` may see (the same rule as its comments: posts.findVisible),
     * the current one first, then what it said before each edit, newest first.
     */
    versions: sqlite.transaction((postId: number, viewer: number) => {
      if (!posts.findVisible(postId, viewer)) throw notFound('This post does not exist.');
      return [current.get(postId)!, ...earlier.all(postId)];
    }),
  };
}

export type PostEditsRepository = ReturnType<typeof createPostEditsRepository>;
