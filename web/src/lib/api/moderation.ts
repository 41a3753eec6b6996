// Reports, blocks and the operator's moderation (docs/api.md, "Moderation"): what anyone may do
// (report, block, read the notices about their own posts), then the operator's page and actions.
import { request } from '@/lib/api/client';
import { arrived } from '@/lib/api/early';
import { ADMIN_OVERVIEW } from '@/lib/first-requests';
import type * as answers from '@server/contract/answers';
import type * as shapes from '@server/contract/api-shapes';
import type { Static } from 'typebox';

export type AdminOverview = Static<typeof shapes.AdminOverview>;
export type AdminReport = Static<typeof shapes.AdminReport>;
export type BlockedPerson = Static<typeof shapes.BlockedPerson>;
export type ModerationNotice = Static<typeof shapes.ModerationNotice>;
export type ReportReason = Static<typeof shapes.ReportReason>;
type Done = Static<typeof answers.Done>;
/** An operator's one-time reset link for a person. */
export type ResetLink = Static<typeof answers.ResetLink>;

export const report = (kind: 'post' | 'comment', id: number, reason: ReportReason, note: string) =>
  request<Static<typeof shapes.ReportReceipt>>('/api/reports', { method: 'POST', body: { kind, id, reason, note } });

const userPath = (username: string) => `/api/account/${encodeURIComponent(username)}`;
export const block = (username: string) => request<Static<typeof answers.Blocked>>(`${userPath(username)}/block`, { method: 'POST' });
export const unblock = (username: string) =>
  request<Static<typeof answers.Blocked>>(`${userPath(username)}/block`, { method: 'DELETE' });
/** Blocks whoever wrote the post, anonymous or not, without the answer naming them. */
export const blockAuthorOf = (postId: number) =>
  request<Static<typeof answers.Blocked>>(`/api/posts/${postId}/block-author`, { method: 'POST' });
export const getBlocks = () => request<Static<typeof answers.Blocks>>('/api/blocks');
export const liftBlock = (blockId: number) => request<Static<typeof answers.Blocked>>(`/api/blocks/${blockId}`, { method: 'DELETE' });
export const getNotices = () => request<Static<typeof answers.Notices>>('/api/account/notices');

// --- the operator ------------------------------------------------------------

export const getAdminOverview = (signal?: AbortSignal) => request<AdminOverview>(ADMIN_OVERVIEW.path, { signal });
/** The operator's overview, if index.html's early request has already brought it (for the page's first render). */
export const earlyAdminOverview = () => arrived<AdminOverview>(ADMIN_OVERVIEW);
export const dismissReports = (kind: 'post' | 'comment', itemId: number) =>
  request<Done>(`/api/admin/reports/${kind}/${itemId}/dismiss`, { method: 'POST', body: {} });
/** An item's open reports forwarded to its author's server (a Flag from this server, with these words and no reporter's name). */
export const forwardReports = (kind: 'post' | 'comment', itemId: number, comment: string) =>
  request<Static<typeof answers.ReportForwarded>>(`/api/admin/reports/${kind}/${itemId}/forward`, { method: 'POST', body: { comment } });
export const removeAsOperator = (kind: 'post' | 'comment', itemId: number, reason: string) =>
  request<Done>(`/api/admin/${kind === 'post' ? 'posts' : 'comments'}/${itemId}`, { method: 'DELETE', body: { reason } });
export const suspend = (username: string, reason: string) =>
  request<Done>(`/api/admin/users/${encodeURIComponent(username)}/suspend`, { method: 'POST', body: { reason } });
export const liftSuspension = (username: string) =>
  request<Done>(`/api/admin/users/${encodeURIComponent(username)}/suspend`, { method: 'DELETE', body: {} });
/** An operator's one-time reset link for a person (valid 24 hours); also e-mailed when the server sends e-mail (docs/api.md, "Passwords"). */
export const makePasswordReset = (username: string) =>
  request<ResetLink>(`/api/admin/users/${encodeURIComponent(username)}/password-reset`, {
    method: 'POST',
  });

/** An operator marks a reported post sensitive: blurred for everyone but its author, logged, its author told why. */
export const markSensitiveAsOperator = (postId: number, reason: string, warning: string) =>
  request<Static<typeof answers.Done>>(`/api/admin/posts/${postId}/sensitive`, { method: 'POST', body: { reason, warning } });
