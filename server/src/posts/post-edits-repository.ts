import type Database from 'better-sqlite3';
import type { Shared } from '../kernel/shared.js';
import { badRequest, forbidden, notFound } from '../kernel/errors.js';
import type { PostsRepository } from './posts-repository.js';
import type { CaptionWrite } from './post-captions.js';

/**
 * What an edit changes: the caption, and photos' descriptions by their place in the post (0 the
 * first, whose description is the post row's alt_text; 1 to 9 an album's post_photos). Absent: unchanged.
 */
export interface PostChanges {
  caption?: string;
  altTexts?: Map<number, string>;
}

/** A post's text as it stands after an edit (PATCH /api/post's answer). */
export interface EditedPost {
  postid: number;
  caption: string;
  altText: string;
  editedAt: string | null;
  /** An album's every description in order (the first is altText); absent for a post of one photo. */
  photos?: Array<{ altText: string }>;
  /** When the caption changed: the usernames it mentions now. */
  mentions?: string[];
}

/** One version of a post's text: what it said from `written_at` on (GET /api/post-versions). */
export interface PostVersionRow {
  caption: string;
  altText: string;
  /** An album's other photos' descriptions (photos 2 to n), empty for a post of one photo. */
  photoAlts: string[];
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
  photoCount: number;
  isAnonymous: number;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** An album's descriptions for an answer: every photo's, the first included; none for one photo. */
const albumAlts = (altText: string, others: string[]) =>
  others.length > 0 ? { photos: [altText, ...others].map((a) => ({ altText: a })) } : {};

/**
 * Edits of a post by its author, and the history they leave (post_versions, migrations 0020 and
 * 0025). An edit, the row keeping what the post said before (its caption and every photo's
 * description) and the album's post_photos rows are one transaction; likes, comments and
 * notifications are rows of their own, by post id, and stay as they are. A version names
 * nobody: who wrote it is the post's author, shown or not by the post's own rules (views.ts).
 */
export function createPostEditsRepository(
  sqlite: Database.Database,
  { live }: Shared,
  posts: PostsRepository,
  onCaption: (write: CaptionWrite) => string | null = () => null,
) {
  const editable = sqlite.prepare<[number], EditablePost>(`
    SELECT user_id AS userId, caption, alt_text AS altText, created_at AS createdAt, edited_at AS editedAt,
      is_profile_picture AS isProfilePicture, hidden, photo_count AS photoCount, is_anonymous AS isAnonymous
    FROM posts WHERE id = ?`);
  // An album's photos after the first, in order (the post_photos primary key).
  const otherAlts = sqlite
    .prepare<[number], string>('SELECT alt_text FROM post_photos WHERE post_id = ? ORDER BY position')
    .pluck();
  const keepVersion = sqlite.prepare<{ post: number; caption: string; altText: string; photoAlts: string; writtenAt: number }>(`
    INSERT INTO post_versions (post_id, caption, alt_text, photo_alts, written_at)
    VALUES (@post, @caption, @altText, @photoAlts, @writtenAt)`);
  const update = sqlite.prepare<{ post: number; caption: string; altText: string; at: number }>(
    'UPDATE posts SET caption = @caption, alt_text = @altText, edited_at = @at WHERE id = @post',
  );
  const updatePhoto = sqlite.prepare<{ post: number; position: number; altText: string }>(
    'UPDATE post_photos SET alt_text = @altText WHERE post_id = @post AND position = @position',
  );
  // Newest first (post_versions_post_idx); the current text is the post row's.
  const earlier = sqlite.prepare<[number], Omit<PostVersionRow, 'photoAlts'> & { photoAlts: string }>(`
    SELECT caption, alt_text AS altText, photo_alts AS photoAlts, written_at AS writtenAt
    FROM post_versions WHERE post_id = ? ORDER BY id DESC`);
  const current = sqlite.prepare<[number], Omit<PostVersionRow, 'photoAlts'> & { photoCount: number }>(
    'SELECT caption, alt_text AS altText, coalesce(edited_at, created_at) AS writtenAt, photo_count AS photoCount FROM posts WHERE id = ?',
  );

  const edit = sqlite.transaction((postId: number, userId: number, changes: PostChanges, at: number): EditedPost => {
    // The caller may have been removed or suspended since the request was authenticated.
    live.assert(userId);
    const post = editable.get(postId);
    // Removed (the row is gone), a profile picture, or hidden by an operator's suspension: nothing to edit.
    if (!post || post.isProfilePicture === 1 || post.hidden === 1) throw notFound('This post does not exist.');
    if (post.userId !== userId) {
      // Someone else's post they cannot see (a private account's, across a block): as if it did not exist.
      if (!posts.findVisible(postId, userId)) throw notFound('This post does not exist.');
      throw forbidden('Only the author can edit this post.');
    }
    for (const index of changes.altTexts?.keys() ?? []) {
      if (index >= post.photoCount) {
        throw badRequest(
          post.photoCount === 1
            ? `This post has 1 photo: photos[].index must be 0, not ${index}.`
            : `This post has ${post.photoCount} photos: photos[].index must be 0 to ${post.photoCount - 1}, not ${index}.`,
        );
      }
    }
    const before = post.photoCount > 1 ? otherAlts.all(postId) : [];
    const caption = changes.caption ?? post.caption;
    const altText = changes.altTexts?.get(0) ?? post.altText;
    const after = before.map((a, i) => changes.altTexts?.get(i + 1) ?? a);
    // Saving the same text again is no edit: no "Edited", no version that repeats the current one.
    if (caption === post.caption && altText === post.altText && after.every((a, i) => a === before[i])) {
      return { postid: postId, caption, altText, editedAt: iso(post.editedAt), ...albumAlts(altText, after) };
    }
    keepVersion.run({
      post: postId,
      caption: post.caption,
      altText: post.altText,
      photoAlts: JSON.stringify(before),
      writtenAt: post.editedAt ?? post.createdAt,
    });
    update.run({ post: postId, caption, altText, at });
    // Its tags and mentions follow the caption (post-captions.ts); the answer says whom it names now.
    const mentioned =
      caption !== post.caption
        ? { mentions: JSON.parse(onCaption({ postId, userId, isAnonymous: post.isAnonymous === 1, caption, at, created: false }) ?? '[]') as string[] }
        : {};
    after.forEach((a, i) => {
      if (a !== before[i]) updatePhoto.run({ post: postId, position: i + 1, altText: a });
    });
    return { postid: postId, caption, altText, editedAt: iso(at), ...albumAlts(altText, after), ...mentioned };
  });

  return {
    /** The author's edit: 404 for a post that is not there (removed) or the caller cannot see, 403 for someone else's they see, 400 for a photo it does not have. */
    edit: (postId: number, userId: number, changes: PostChanges, at = Date.now()) => edit.immediate(postId, userId, changes, at),
    /**
     * Every version of a post `viewer` may see (the same rule as its comments: posts.findVisible),
     * the current one first, then what it said before each edit, newest first.
     */
    versions: sqlite.transaction((postId: number, viewer: number): PostVersionRow[] => {
      if (!posts.findVisible(postId, viewer)) throw notFound('This post does not exist.');
      const { photoCount, ...now } = current.get(postId)!;
      return [
        { ...now, photoAlts: photoCount > 1 ? otherAlts.all(postId) : [] },
        ...earlier.all(postId).map((v) => ({ ...v, photoAlts: JSON.parse(v.photoAlts) as string[] })),
      ];
    }),
  };
}

export type PostEditsRepository = ReturnType<typeof createPostEditsRepository>;
