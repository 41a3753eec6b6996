import type Database from 'better-sqlite3';
import { badRequest, conflict, HttpError, notFound } from '../kernel/errors.js';
import type { CommentsRepository } from '../social/comments-repository.js';
import { NOT_BLOCKED_BY_NAME, type PostsRepository } from '../posts/posts-repository.js';
import { createModerationLog, type ActionName, type Operator } from '../kernel/moderation-log.js';
import type { SuspensionSteps } from '../people/suspension.js';
import type { Shared } from '../kernel/shared.js';

export type ReportKind = 'post' | 'comment';
export type ReportReason = 'spam' | 'nudity' | 'harassment' | 'other';
export type { ActionName, Operator };
export interface OpenReportRow {
  postId: number;
  commentId: number | null;
  reporterCount: number;
  lastReportedAt: number;
  /** JSON array of { reason, note, created_at } (ms). */
  reasons: string;
  text: string;
  createdAt: number;
  mediaKey: string;
  isAnonymous: number;
  author: string;
  authorSuspended: number;
  /** A reported post's last edit (posts.edited_at); null for comments and unedited posts. */
  editedAt: number | null;
  /** JSON array of { id, caption, altText, created_at } (ms): what a reported post said before each edit. */
  history: string;
  /** JSON array of { mediaKey, altText }: a reported album's photos after the first, in order; null otherwise. */
  albumPhotos: string | null;
  /** The post is marked sensitive (posts.sensitive), with its warning. */
  sensitive: number;
  contentWarning: string;
  /** The author's server when they are another server's (users.host); null for ours. */
  authorHost: string | null;
  /** Where and when the item's reports were forwarded (a Flag, federation/flags.ts); null when not. */
  forwardedTo: string | null;
  forwardedAt: number | null;
}

export interface ActionRow {
  id: number;
  operator: string;
  action: ActionName;
  target: string;
  reason: string;
  createdAt: number;
}

/** What an operator removed of the caller's, for their notices. */
export interface NoticeRow {
  action: 'remove_post' | 'remove_comment' | 'mark_sensitive';
  excerpt: string;
  reason: string;
  createdAt: number;
}

/** Most open items and logged actions the operator page lists. */
export const OPEN_REPORTS_SHOWN = 100;
export const ACTIONS_SHOWN = 100;

export const REPORT_RECEIVED = 'Thanks, an operator will look at it';

const alreadyReported = () =>
  new HttpError(409, 'already_reported', 'You already reported this, and an operator has not looked at it yet.');

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';

/**
 * Reports, the operator's actions on them and on accounts, and the log of every
 * action. Each action and its log entry are one transaction. Reports are read
 * only by operators; a reporter learns nothing about an anonymous post's author.
 */
export function createModerationRepository(
  sqlite: Database.Database,
  { live }: Shared,
  suspension: SuspensionSteps,
  posts: PostsRepository,
  comments: CommentsRepository,
) {

  // A comment the reporter can see: not hidden, on a post they can see, by someone without a block
  // by name between them, or by the anonymous post's author (shown without a name; comments-repository.ts).
  const visibleComment = sqlite.prepare<{ id: number; viewer: number }, { postId: number; userId: number }>(`
    SELECT c.post_id AS postId, c.user_id AS userId FROM comments c JOIN posts p ON p.id = c.post_id
    WHERE c.id = @id AND c.hidden = 0
      AND ((p.is_anonymous = 1 AND c.user_id = p.user_id) OR (${NOT_BLOCKED_BY_NAME('c.user_id')}))`);
  const insertReport = sqlite.prepare<{ reporter: number; post: number; comment: number | null; reason: ReportReason; note: string; now: number }>(`
    INSERT INTO reports (reporter_id, post_id, comment_id, reason, note, created_at)
    VALUES (@reporter, @post, @comment, @reason, @note, @now)`);

  const openReports = sqlite.prepare<[number], OpenReportRow>(`
    WITH open AS (
      SELECT post_id, comment_id, count(*) AS reporterCount, max(created_at) AS lastReportedAt, max(id) AS lastReportId,
        json_group_array(json_object('reason', reason, 'note', note, 'created_at', created_at, 'fromHost', reporter_host)) AS reasons,
        max(forwarded_to) AS forwardedTo, max(forwarded_at) AS forwardedAt
      FROM reports WHERE resolved_at IS NULL
      GROUP BY post_id, comment_id
      -- Reports in the same millisecond: the later one (the larger id) first, so the order is always the same.
      ORDER BY lastReportedAt DESC, lastReportId DESC
      LIMIT ?
    )
    SELECT o.post_id AS postId, o.comment_id AS commentId, o.reporterCount, o.lastReportedAt, o.reasons,
      coalesce(c.content, p.caption) AS text, coalesce(c.created_at, p.created_at) AS createdAt,
      p.media_key AS mediaKey, CASE WHEN c.id IS NULL THEN p.is_anonymous ELSE 0 END AS isAnonymous,
      u.username AS author, u.suspended_at IS NOT NULL AS authorSuspended,
      CASE WHEN c.id IS NULL THEN p.edited_at END AS editedAt,
      -- A reported post's earlier versions (post_versions_post_idx), so an edit cannot hide what was reported.
      CASE WHEN c.id IS NULL AND p.edited_at IS NOT NULL THEN (
        SELECT json_group_array(json_object('id', v.id, 'caption', v.caption, 'altText', v.alt_text, 'photoAlts', json(v.photo_alts), 'created_at', v.written_at))
        FROM post_versions v WHERE v.post_id = p.id) ELSE '[]' END AS history,
      -- A reported album's other photos (post_photos' primary key), so none of them is judged unseen.
      CASE WHEN c.id IS NULL AND p.photo_count > 1 THEN (
        SELECT json_group_array(json_object('mediaKey', f.media_key, 'altText', f.alt_text))
        FROM (SELECT media_key, alt_text FROM post_photos WHERE post_id = p.id ORDER BY position) f) END AS albumPhotos,
      p.sensitive, p.content_warning AS contentWarning, u.host AS authorHost, o.forwardedTo, o.forwardedAt
    FROM open o
    JOIN posts p ON p.id = o.post_id
    LEFT JOIN comments c ON c.id = o.comment_id
    JOIN users u ON u.id = coalesce(c.user_id, p.user_id)
    ORDER BY o.lastReportedAt DESC, o.lastReportId DESC`);
  const resolve = sqlite.prepare<{ post: number; comment: number | null; now: number }>(`
    UPDATE reports SET resolved_at = @now
    WHERE resolved_at IS NULL AND post_id = @post AND comment_id IS @comment`);
  const commentOwner = sqlite.prepare<[number], { postId: number; userId: number; username: string }>(`
    SELECT c.post_id AS postId, c.user_id AS userId, u.username FROM comments c JOIN users u ON u.id = c.user_id WHERE c.id = ?`);
  const postOwner = sqlite.prepare<[number], { userId: number; username: string }>(`
    SELECT p.user_id AS userId, u.username FROM posts p JOIN users u ON u.id = p.user_id WHERE p.id = ?`);
  // Accounts waiting for approval (or refused) are held with suspended_at too (registration/registration-service.ts): not moderation's.
  const userByName = sqlite.prepare<[string], { id: number; username: string; suspendedAt: number | null }>(`
    SELECT id, username, suspended_at AS suspendedAt FROM users WHERE username = ? COLLATE NOCASE AND deleted_at IS NULL
      AND join_state IS NULL`);

  const actions = sqlite.prepare<[number], ActionRow>(`
    SELECT id, operator_name AS operator, action, target, reason, created_at AS createdAt
    FROM moderation_actions ORDER BY id DESC LIMIT ?`);
  const notices = sqlite.prepare<[number], NoticeRow>(`
    SELECT action, excerpt, reason, created_at AS createdAt FROM moderation_actions
    WHERE target_user_id = ? AND action IN ('remove_post', 'remove_comment', 'mark_sensitive')
    ORDER BY created_at DESC, id DESC LIMIT 50`);
  const suspendedUsers = sqlite.prepare<[], { username: string; reason: string; createdAt: number }>(`
    SELECT username, coalesce(suspension_reason, '') AS reason, suspended_at AS createdAt
    FROM users WHERE suspended_at IS NOT NULL AND deleted_at IS NULL AND join_state IS NULL ORDER BY suspended_at DESC LIMIT 500`);
  const suspensionOf = sqlite.prepare<[number], { reason: string; createdAt: number }>(`
    SELECT coalesce(suspension_reason, '') AS reason, suspended_at AS createdAt FROM users WHERE id = ? AND suspended_at IS NOT NULL`);
  const figures = sqlite.prepare<[], { users: number; posts: number; storageBytes: number; suspendedUsers: number; openReports: number }>(`
    SELECT
      (SELECT count(*) FROM users WHERE deleted_at IS NULL AND host IS NULL) AS users,
      (SELECT count(*) FROM posts WHERE is_profile_picture = 0) AS posts,
      (SELECT coalesce(sum(stored_bytes), 0) FROM posts) AS storageBytes,
      (SELECT count(*) FROM users WHERE suspended_at IS NOT NULL AND deleted_at IS NULL AND join_state IS NULL) AS suspendedUsers,
      (SELECT count(*) FROM (SELECT 1 FROM reports WHERE resolved_at IS NULL GROUP BY post_id, comment_id)) AS openReports`);

  const log = createModerationLog(sqlite);

  const describeItem = (kind: ReportKind, itemId: number): { postId: number; commentId: number | null; target: string; userId: number } => {
    if (kind === 'post') {
      const owner = postOwner.get(itemId);
      if (!owner) throw notFound('This post does not exist.');
      return { postId: itemId, commentId: null, target: `post ${itemId} by ${owner.username}`, userId: owner.userId };
    }
    const owner = commentOwner.get(itemId);
    if (!owner) throw notFound('This comment does not exist.');
    return { postId: owner.postId, commentId: itemId, target: `comment ${itemId} by ${owner.username}`, userId: owner.userId };
  };


  const report = sqlite.transaction((reporter: number, kind: ReportKind, itemId: number, reason: ReportReason, note: string) => {
    live.assert(reporter);
    let postId: number;
    let commentId: number | null = null;
    if (kind === 'post') {
      const post = posts.findVisible(itemId, reporter);
      if (!post) throw notFound('This post does not exist.');
      if (post.userId === reporter) throw badRequest('You cannot report your own post.');
      postId = itemId;
    } else {
      const comment = visibleComment.get({ id: itemId, viewer: reporter });
      if (!comment || !posts.findVisible(comment.postId, reporter)) throw notFound('This comment does not exist.');
      if (comment.userId === reporter) throw badRequest('You cannot report your own comment.');
      postId = comment.postId;
      commentId = itemId;
    }
    try {
      insertReport.run({ reporter, post: postId, comment: commentId, reason, note, now: Date.now() });
    } catch (err) {
      if (isUniqueViolation(err)) throw alreadyReported();
      throw err;
    }
  });

  const dismiss = sqlite.transaction((op: Operator, kind: ReportKind, itemId: number, reason: string) => {
    live.assert(op.id);
    const item = describeItem(kind, itemId);
    const closed = resolve.run({ post: item.postId, comment: item.commentId, now: Date.now() }).changes;
    if (closed === 0) throw notFound('There is no open report on this item.');
    log(op, 'dismiss', `${closed} report${closed === 1 ? '' : 's'} on ${item.target}`, item.userId, reason);
  });

  const removeComment = sqlite.transaction((op: Operator, commentId: number, reason: string) => {
    live.assert(op.id);
    const item = describeItem('comment', commentId);
    // Its reports go with it (ON DELETE CASCADE); the log keeps what it said for its author's notice.
    const removed = comments.removeAnyInTransaction(commentId);
    log(op, 'remove_comment', item.target, item.userId, reason, removed.content);
  });

  const setSuspension = sqlite.transaction((op: Operator, username: string, suspend: boolean, reason: string) => {
    live.assert(op.id);
    const user = userByName.get(username);
    if (!user) throw notFound(`There is no user named "${username}".`);
    if (suspend) {
      if (user.id === op.id) throw badRequest('You cannot suspend your own account.');
      if (user.suspendedAt !== null) throw conflict(`${user.username} is already suspended.`);
      suspension.suspend(user.id, reason, Date.now());
    } else {
      if (user.suspendedAt === null) throw conflict(`${user.username} is not suspended.`);
      suspension.lift(user.id);
    }
    log(op, suspend ? 'suspend' : 'unsuspend', user.username, user.id, reason);
  });

  return {
    report: (reporter: number, kind: ReportKind, itemId: number, reason: ReportReason, note: string) =>
      report.immediate(reporter, kind, itemId, reason, note),
    dismiss: (op: Operator, kind: ReportKind, itemId: number, reason: string) => dismiss.immediate(op, kind, itemId, reason),
    removeComment: (op: Operator, commentId: number, reason: string) => removeComment.immediate(op, commentId, reason),
    /** For an operator's removal of a post (posts/post-writes-service.ts): runs inside its deleting transaction. */
    logPostRemoval(op: Operator, post: { id: number; userId: number; caption: string }, reason: string) {
      live.assert(op.id);
      const owner = postOwner.get(post.id);
      log(op, 'remove_post', `post ${post.id} by ${owner?.username ?? 'a removed account'}`, post.userId, reason, post.caption);
    },
    /**
     * For an operator's "Mark sensitive" (posts/content-warnings-service.ts): runs inside its
     * transaction. The post's open reports are resolved by it, and the author is told with the reason.
     */
    logMarkSensitive(op: Operator, post: { id: number; userId: number; caption: string }, reason: string) {
      live.assert(op.id);
      resolve.run({ post: post.id, comment: null, now: Date.now() });
      const owner = postOwner.get(post.id);
      log(op, 'mark_sensitive', `post ${post.id} by ${owner?.username ?? 'a removed account'}`, post.userId, reason, post.caption);
    },
    suspend: (op: Operator, username: string, reason: string) => setSuspension.immediate(op, username, true, reason),
    unsuspend: (op: Operator, username: string, reason: string) => setSuspension.immediate(op, username, false, reason),
    suspensionOf: (userId: number) => suspensionOf.get(userId),
    notices: (userId: number) => notices.all(userId),
    /** The operator page in one snapshot. */
    overview: sqlite.transaction(() => ({
      figures: figures.get()!,
      reports: openReports.all(OPEN_REPORTS_SHOWN),
      suspended: suspendedUsers.all(),
      actions: actions.all(ACTIONS_SHOWN),
    })),
  };
}

export type ModerationRepository = ReturnType<typeof createModerationRepository>;
