// What people do to each other's posts and to each other: likes, comments, follows and the
// follow requests of private accounts (docs/api.md, "Private accounts").
import { request } from '@/lib/api/client';
import type { CommentView as Comment, FollowRequestView as FollowRequest, LikeStateView as LikeState } from '@server/api-shapes';

export type { Comment, FollowRequest, LikeState };

export const getLikes = (postId: number) => request<LikeState>(`/api/like?postId=${postId}`);
export const like = (postId: number) => request<LikeState>('/api/like', { method: 'POST', body: { postId } });
export const unlike = (postId: number) => request<LikeState>(`/api/like?postId=${postId}`, { method: 'DELETE' });

export const getComments = (postId: number) => request<Comment[]>(`/api/comment?postId=${postId}`);
export const addComment = (postId: number, comment: string) =>
  request<Comment>('/api/comment', { method: 'POST', body: { postId, comment } });
export const deleteComment = (commentId: number) =>
  request<{ deleted: boolean }>(`/api/comment?commentId=${commentId}`, { method: 'DELETE' });

/** `requested`: the account is private, and the follow waits for its answer. */
export interface FollowState {
  following: boolean;
  requested: boolean;
  followerCount: number;
}

export const follow = (username: string) =>
  request<FollowState>(`/api/account/${encodeURIComponent(username)}/follow`, {
    method: 'POST',
  });

/** Unfollows, or cancels a follow request still waiting. */
export const unfollow = (username: string) =>
  request<FollowState>(`/api/account/${encodeURIComponent(username)}/follow`, {
    method: 'DELETE',
  });

export const getFollowRequests = (signal?: AbortSignal) => request<FollowRequest[]>('/api/follow-requests', { signal });
export const approveFollowRequest = (username: string) =>
  request<{ followerCount: number }>(`/api/follow-requests/${encodeURIComponent(username)}/approve`, { method: 'POST' });
export const declineFollowRequest = (username: string) =>
  request<{ declined: true }>(`/api/follow-requests/${encodeURIComponent(username)}`, { method: 'DELETE' });
