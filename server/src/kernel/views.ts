import { mediaUrls } from './storage/media-keys.js';
import type { CommentView, PostView } from '../contract/api-shapes.js';
import { formatCursor } from './paging.js';

export type { CommentView, PostView };

/** A post as the page queries read it (SQLite booleans are 0/1). */
export interface PostRow {
  id: number;
  userId: number;
  caption: string;
  altText: string;
  isAnonymous: number;
  mediaKey: string;
  width: number;
  height: number;
  /** 0: no medium rendition. */
  mediumWidth: number;
  likeCount: number;
  commentCount: number;
  createdAt: number;
  username: string;
  pictureKey: string | null;
  liked: number;
  /** When its author last edited it (posts.edited_at); null: never. */
  editedAt: number | null;
  /** posts.photo_count: above 1, an album whose other photos come in PostPage.photos. */
  photoCount: number;
  /** posts.mentions: the usernames its caption names, as a JSON array; null: none. */
  mentions: string | null;
  /**
   * null: not marked sensitive (docs/api.md, "Content warnings"). Else `0` or `1`, then the JSON
   * array `[content_warning, blur_key]`: `1` when this viewer gets the photo itself (their own post,
   * or they always show sensitive photos), `0` when they get the blurred image. One column, null
   * for nearly every post, so pages without sensitive posts read and build no more than before.
   */
  sensitivity: string | null;
}

/** An album's photo after its first (post_photos), as the page queries read it. */
export interface PhotoRow {
  postId: number;
  position: number;
  mediaKey: string;
  width: number;
  height: number;
  mediumWidth: number;
  altText: string;
}

export interface CommentRow {
  id: number;
  postId: number;
  userId: number;
  content: string;
  createdAt: number;
  username: string;
  /** comments.mentions, as posts.mentions. */
  mentions: string | null;
}

/** What a viewer needs to know about a comment's post to render it without leaking its author. */
export interface PostAuthorship {
  userId: number;
  isAnonymous: number;
}

/** A page of posts as read in one snapshot: the rows and the first comments of each post. */
export interface PostPage {
  rows: PostRow[];
  /** Post id → its first comments, oldest first (absent: none). */
  comments: Map<number, CommentRow[]>;
  /** Album id → its photos after the first, in order (absent: a single photo; only albums are read). */
  photos?: Map<number, PhotoRow[]>;
}

/** posts.mentions or comments.mentions as the answer's list. */
export const mentionList = (json: string | null): string[] => (json === null ? [] : (JSON.parse(json) as string[]));

export const pictureUrl = (key: string | null): string | null => (key ? mediaUrls(key).thumbnailUrl : null);

// The anonymity rules, used by commentView and by the Post writer (posts/page-json.ts).

/** The author of an anonymous post is shown to the author only. */
export const authorHidden = (post: PostAuthorship, viewerId: number): boolean => post.isAnonymous === 1 && post.userId !== viewerId;

/**
 * Comments are signed, except that the author of an anonymous post commenting
 * on it stays anonymous to everyone but themself: a comment never reveals the post's author.
 */
export const commenterHidden = (comment: { userId: number }, post: PostAuthorship, viewerId: number): boolean =>
  authorHidden(post, viewerId) && comment.userId === post.userId;

export function commentView(row: CommentRow, post: PostAuthorship, viewerId: number): CommentView {
  const hidden = commenterHidden(row, post, viewerId);
  return {
    comment_id: row.id,
    username: hidden ? null : row.username,
    content: row.content,
    created_at: new Date(row.createdAt).toISOString(),
    userid: hidden ? null : row.userId,
    isOwner: row.userId === viewerId,
    cursor: formatCursor(row.createdAt, row.id),
    mentions: mentionList(row.mentions),
  };
}
