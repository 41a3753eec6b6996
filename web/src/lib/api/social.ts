// What people do to each other's posts and to each other: likes, comments, follows and the
// follow requests of private accounts (docs/api.md, "Private accounts").
import { request } from '@/lib/api/client';
import type * as answers from '@server/contract/answers';
import type * as shapes from '@server/contract/api-shapes';
import type { Static } from 'typebox';

export type Comment = Static<typeof shapes.Comment>;
export type FollowRequest = Static<typeof shapes.FollowRequest>;
export type LikeState = Static<typeof shapes.LikeState>;
/** `requested`: the account is private, and the follow waits for its answer. */
export type FollowState = Static<typeof answers.FollowState>;

export const getLikes = (postId: number) => request<LikeState>(`/api/like?postId=${postId}`);
export const like = (postId: number) => request<LikeState>('/api/like', { method: 'POST', body: { postId } });
export const unlike = (postId: number) => request<LikeState>(`/api/like?postId=${postId}`, { method: 'DELETE' });

export const getComments = (postId: number) => request<Static<typeof answers.Comments>>(`/api/comment?postId=${postId}`);
export const addComment = (postId: number, comment: string) =>
  request<Comment>('/api/comment', { method: 'POST', body: { postId, comment } });
export const deleteComment = (commentId: number) =>
  request<Static<typeof answers.Deleted>>(`/api/comment?commentId=${commentId}`, { method: 'DELETE' });

export const follow = (username: string) =>
  request<FollowState>(`/api/account/${encodeURIComponent(username)}/follow`, {
    method: 'POST',
  });

/** Unfollows, or cancels a follow request still waiting. */
export const unfollow = (username: string) =>
  request<FollowState>(`/api/account/${encodeURIComponent(username)}/follow`, {
    method: 'DELETE',
  });

export const getFollowRequests = (signal?: AbortSignal) => request<Static<typeof answers.FollowRequests>>('/api/follow-requests', { signal });
export const approveFollowRequest = (username: string) =>
  request<Static<typeof answers.FollowApproved>>(`/api/follow-requests/${encodeURIComponent(username)}/approve`, { method: 'POST' });
export const declineFollowRequest = (username: string) =>
  request<Static<typeof answers.FollowDeclined>>(`/api/follow-requests/${encodeURIComponent(username)}`, { method: 'DELETE' });
