// People and the own account: who the signed-in person is (to the provider and to this server),
// finding someone, a private account, the picture, the password, storage and removal.
import { ApiError, request } from '@/lib/api/client';
import { upload } from '@/lib/api/uploads';
import { getConfig } from '@/lib/config';
import { getToken } from '@/lib/session';
import type * as answers from '@server/contract/answers';
import type * as shapes from '@server/contract/api-shapes';
import type { Static } from 'typebox';

export type Me = Static<typeof shapes.Me>;
export type Privacy = Static<typeof shapes.Privacy>;
export type ProfileResult = Static<typeof shapes.ProfileMatch>;
/** Bytes the caller's images take and their quota (0: no limit). */
export type StorageUse = Static<typeof answers.StorageUse>;

/** What the sign-in provider's user-info endpoint says (not this server's answer, so not in its contract). */
export interface UserInfo {
  username: string | null;
  email: string | null;
}

/** The provider's user info; the name may come as username, cognito:username or preferred_username. */
export async function fetchUserInfo(): Promise<UserInfo> {
  const token = getToken();
  if (!token) throw new ApiError(401, 'Not signed in');
  const res = await fetch(getConfig().auth.userInfoUrl, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new ApiError(res.status, `User info failed: ${res.status}`);
  const info = (await res.json()) as Record<string, unknown>;
  const pick = (...keys: string[]) => {
    for (const k of keys) if (typeof info[k] === 'string' && info[k]) return info[k] as string;
    return null;
  };
  return { username: pick('username', 'cognito:username', 'preferred_username'), email: pick('email') };
}

export const syncUser = () =>
  request<Static<typeof answers.SyncedUser>>('/api/sync-users', {
    method: 'POST',
    host: 'second',
  });

/** Who the signed-in person is to this server: operator or not, suspended or not. */
export const getMe = (signal?: AbortSignal) => request<Me>('/api/me', { signal });

export const searchProfiles = (username: string) =>
  request<Static<typeof answers.ProfileMatches>>(`/api/search-profiles?username=${encodeURIComponent(username)}`, { credentials: 'include' });

/** docs/api.md, "Private accounts". */
export const setPrivacy = (isPrivate: boolean) => request<Privacy>('/api/account/privacy', { method: 'PUT', body: { isPrivate } });

export async function changeProfilePicture(
  file: File,
  onProgress?: (fraction: number) => void,
): Promise<Static<typeof answers.ProfilePictureSet>> {
  const s3Key = await upload(file, true, onProgress);
  return request<Static<typeof answers.ProfilePictureSet>>('/api/create-post', {
    method: 'POST',
    body: { s3Key, isProfilePicture: true },
  });
}

/** Changes the own password (embedded provider): answers a new token for this session, every other one ends (docs/api.md, "Passwords"). */
export const changePassword = (currentPassword: string, newPassword: string) =>
  request<Static<typeof answers.PasswordChanged>>('/api/account/password', { method: 'PUT', body: { currentPassword, newPassword } });

export const getStorage = () => request<StorageUse>('/api/storage');

/** Removes the caller's account and everything in it; the body names it again as confirmation. */
export const deleteAccount = (confirmUsername: string) =>
  request<Static<typeof answers.Deleted>>('/api/account', { method: 'DELETE', body: { confirmUsername } });

/** A hashtag a search found, with how many posts carry it. */
export type TagResult = Static<typeof answers.TagMatch>;
/** Tags starting with `term` (a leading `#` is allowed), the busiest first (issue 47). */
export const searchTags = (term: string) => request<TagResult[]>(`/api/search-tags?tag=${encodeURIComponent(term)}`);
