import { mediaUrls, mediumUrl } from '../storage/media-keys.js';
import type { CommentView, PostView } from './api-shapes.js';
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
}

export interface CommentRow {
  id: number;
  postId: number;
  userId: number;
  content: string;
  createdAt: number;
  username: string;
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
}

export const pictureUrl = (key: string | null): string | null => (key ? mediaUrls(key).thumbnailUrl : null);

// The anonymity rules, used by postView/commentView and by the page writer (page-json.ts).

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
  };
}

/**
 * A post as the API shows it: the author of an anonymous post is only shown to the author.
 * Feed pages are written straight to JSON by page-json.ts with the same rules (a test holds the two equal).
 */
export function postView(row: PostRow, viewerId: number, comments: CommentRow[]): PostView {
  const isOwner = row.userId === viewerId;
  const hidden = authorHidden(row, viewerId);
  const { s3Url, thumbnailUrl } = mediaUrls(row.mediaKey);
  return {
    postid: row.id,
    s3Url,
    thumbnailUrl,
    width: row.width,
    height: row.height,
    mediumUrl: mediumUrl(row.mediaKey, row.mediumWidth),
    mediumWidth: row.mediumWidth,
    caption: row.caption,
    altText: row.altText,
    isAnonymous: row.isAnonymous === 1,
    created_at: new Date(row.createdAt).toISOString(),
    username: hidden ? null : row.username,
    profilePictureUrl: hidden ? null : pictureUrl(row.pictureKey),
    isOwner,
    likeCount: row.likeCount,
    likedByUser: row.liked === 1,
    commentCount: row.commentCount,
    comments: comments.map((c) => commentView(c, row, viewerId)),
    cursor: formatCursor(row.createdAt, row.id),
  };
}

export const postViews = (page: PostPage, viewerId: number): PostView[] =>
  page.rows.map((r) => postView(r, viewerId, page.comments.get(r.id) ?? []));
