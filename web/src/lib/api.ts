// Every network call of the app lives here; components call these functions, never fetch.
import { getConfig } from '@/lib/config';
import { takeEarly } from '@/lib/early';
import { apiPaths, type ApiHost } from '@/lib/first-requests';
import { endSessionUnauthorized, getToken } from '@/lib/session';

// Posts, comments and profiles exactly as the server's schemas define them (type-only: nothing of the
// server is bundled); a field renamed there fails this app's typecheck.
import type {
  AdminOverviewView as AdminOverview,
  AdminReportView as AdminReport,
  BlockedPersonView as BlockedPerson,
  CommentView as Comment,
  LikeStateView as LikeState,
  MeView as Me,
  ModerationNoticeView as ModerationNotice,
  NotificationGroupView as NotificationGroup,
  OwnProfileView as UserPosts,
  PostView as Post,
  ProfileMatchView as ProfileResult,
  ReportReasonName as ReportReason,
  UserProfileView as ViewedUser,
} from '@server/api-shapes';

export type {
  AdminOverview,
  AdminReport,
  BlockedPerson,
  Comment,
  LikeState,
  Me,
  ModerationNotice,
  NotificationGroup,
  Post,
  ProfileResult,
  ReportReason,
  UserPosts,
  ViewedUser,
};

export interface UserInfo {
  username: string | null;
  email: string | null;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Host = ApiHost;

interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  host?: Host;
  credentials?: RequestCredentials;
  signal?: AbortSignal;
}

function baseUrl(host: Host): string {
  const { api } = getConfig();
  return host === 'second' ? api.secondBaseUrl : api.baseUrl;
}

/** The answer to an API call that succeeded (2xx); 401 ends the session, any other refusal throws its message. */
async function call(path: string, opts: RequestOptions = {}, accept = 'application/json'): Promise<Response> {
  const token = getToken();
  if (!token) {
    endSessionUnauthorized();
    throw new ApiError(401, 'Not signed in');
  }
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${baseUrl(opts.host ?? 'main')}${path}`, {
    method: opts.method ?? 'GET',
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    credentials: opts.credentials,
    signal: opts.signal,
  });
  if (res.status === 401) {
    endSessionUnauthorized();
    throw new ApiError(401, 'Session ended');
  }
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    let message = text || res.statusText;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {
      /* plain text answer */
    }
    throw new ApiError(res.status, message);
  }
  return res;
}

async function request<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  // A screen's first call may have been sent by index.html already (lib/early.ts): its 2xx answer
  // is this one. Anything else (refused, failed, none) and the call is made here as usual.
  if (opts.method === undefined && opts.body === undefined) {
    const early = await takeEarly(opts.host ?? 'main', path);
    if (early !== undefined && !opts.signal?.aborted) return early as T;
  }
  return (await (await call(path, opts)).json()) as T;
}

export interface PageParams {
  limit: number;
  cursor?: string;
  signal?: AbortSignal;
}

// --- identity ---------------------------------------------------------------

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
  request<{ username: string; email: string | null; profilePictureUrl: string | null }>('/api/sync-users', {
    method: 'POST',
    host: 'second',
  });

// --- feeds and profiles ------------------------------------------------------

export const getUserPosts = ({ limit, cursor, signal }: PageParams) =>
  request<UserPosts>(apiPaths.userPosts({ limit, cursor }), { signal });

export const getDiscoverPosts = ({ limit, cursor, signal }: PageParams) =>
  request<Post[]>(apiPaths.discoverPosts({ limit, cursor }), { signal });

export const getFollowFeed = ({ limit, cursor, signal }: PageParams) =>
  request<Post[]>(apiPaths.followFeed({ limit, cursor }), { signal });

export const viewUserPosts = (username: string, { limit, cursor, signal }: PageParams) =>
  request<ViewedUser>(apiPaths.viewUserPosts(username, { limit, cursor }), { host: 'second', signal });

export const searchProfiles = (username: string) =>
  request<ProfileResult[]>(`/api/search-profiles?username=${encodeURIComponent(username)}`, { credentials: 'include' });

export const follow = (username: string) =>
  request<{ following: boolean; followerCount: number }>(`/api/account/${encodeURIComponent(username)}/follow`, {
    method: 'POST',
  });

export const unfollow = (username: string) =>
  request<{ following: boolean; followerCount: number }>(`/api/account/${encodeURIComponent(username)}/follow`, {
    method: 'DELETE',
  });

// --- likes, comments, posts --------------------------------------------------

export const getLikes = (postId: number) => request<LikeState>(`/api/like?postId=${postId}`);
export const like = (postId: number) => request<LikeState>('/api/like', { method: 'POST', body: { postId } });
export const unlike = (postId: number) => request<LikeState>(`/api/like?postId=${postId}`, { method: 'DELETE' });

export const getComments = (postId: number) => request<Comment[]>(`/api/comment?postId=${postId}`);
export const addComment = (postId: number, comment: string) =>
  request<Comment>('/api/comment', { method: 'POST', body: { postId, comment } });
export const deleteComment = (commentId: number) =>
  request<{ deleted: boolean }>(`/api/comment?commentId=${commentId}`, { method: 'DELETE' });

export const deletePost = (postId: number) =>
  request<{ deleted: boolean }>(`/api/post?postId=${postId}`, { method: 'DELETE' });

/** Bytes the caller's images take and their quota (0: no limit). */
export const getStorage = () => request<{ usedBytes: number; quotaBytes: number }>('/api/storage');

/** Removes the caller's account and everything in it; the body names it again as confirmation. */
export const deleteAccount = (confirmUsername: string) =>
  request<{ deleted: true }>('/api/account', { method: 'DELETE', body: { confirmUsername } });

// --- notifications (docs/api.md, "Notifications") ---------------------------

export const getUnreadNotifications = (signal?: AbortSignal) =>
  request<{ unread: number }>('/api/notifications/unread', { signal });
export const getNotifications = ({ limit, cursor, signal }: PageParams) =>
  request<NotificationGroup[]>(apiPaths.notifications({ limit, cursor }), { signal });
/** Marks read everything up to `upTo` (the latestTime of the newest group shown); answers what stays unread. */
export const markNotificationsRead = (upTo: number) =>
  request<{ unread: number }>('/api/notifications/read', { method: 'POST', body: { upTo } });

// --- moderation (docs/api.md, "Moderation") --------------------------------

/** Who the signed-in person is to this server: operator or not, suspended or not. */
export const getMe = (signal?: AbortSignal) => request<Me>('/api/me', { signal });

export const report = (kind: 'post' | 'comment', id: number, reason: ReportReason, note: string) =>
  request<{ reported: true; message: string }>('/api/reports', { method: 'POST', body: { kind, id, reason, note } });

const userPath = (username: string) => `/api/account/${encodeURIComponent(username)}`;
export const block = (username: string) => request<{ blocked: boolean }>(`${userPath(username)}/block`, { method: 'POST' });
export const unblock = (username: string) =>
  request<{ blocked: boolean }>(`${userPath(username)}/block`, { method: 'DELETE' });
/** Blocks whoever wrote the post, anonymous or not, without the answer naming them. */
export const blockAuthorOf = (postId: number) =>
  request<{ blocked: boolean }>(`/api/posts/${postId}/block-author`, { method: 'POST' });
export const getBlocks = () => request<{ blocks: BlockedPerson[] }>('/api/blocks');
export const liftBlock = (blockId: number) => request<{ blocked: boolean }>(`/api/blocks/${blockId}`, { method: 'DELETE' });
export const getNotices = () => request<{ notices: ModerationNotice[] }>('/api/account/notices');

type Done = { done: true };
export const getAdminOverview = (signal?: AbortSignal) => request<AdminOverview>(apiPaths.adminOverview(), { signal });
export const dismissReports = (kind: 'post' | 'comment', itemId: number) =>
  request<Done>(`/api/admin/reports/${kind}/${itemId}/dismiss`, { method: 'POST', body: {} });
export const removeAsOperator = (kind: 'post' | 'comment', itemId: number, reason: string) =>
  request<Done>(`/api/admin/${kind === 'post' ? 'posts' : 'comments'}/${itemId}`, { method: 'DELETE', body: { reason } });
export const suspend = (username: string, reason: string) =>
  request<Done>(`/api/admin/users/${encodeURIComponent(username)}/suspend`, { method: 'POST', body: { reason } });
export const liftSuspension = (username: string) =>
  request<Done>(`/api/admin/users/${encodeURIComponent(username)}/suspend`, { method: 'DELETE', body: {} });

// --- data export (docs/api.md, "Your data export") --------------------------

/**
 * "Download my data": GET /api/export, read as it arrives. The server streams the zip
 * without a Content-Length, so `onProgress` gets the bytes received so far, not a
 * fraction. The answer is kept as a Blob (browsers keep big ones on disk) for the
 * caller to save; `fileName` is the server's, when its header is readable here.
 */
export async function downloadExport(
  onProgress: (bytesReceived: number) => void,
  signal?: AbortSignal,
): Promise<{ zip: Blob; fileName: string | null }> {
  const res = await call('/api/export', { signal }, 'application/zip, application/json');
  if (!res.body) throw new ApiError(0, 'This browser cannot read the download.');
  const reader = res.body.getReader();
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let received = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      received += value.length;
      onProgress(received);
    }
  } catch (err) {
    if (signal?.aborted) throw err;
    // The server cuts the connection when the export fails part-way: what came is not a whole zip.
    throw new ApiError(0, 'The download broke off before the end. Please try again.');
  }
  const fileName = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? null;
  return { zip: new Blob(chunks, { type: 'application/zip' }), fileName };
}

// --- uploads -----------------------------------------------------------------

const presignUpload = (file: File, isProfilePicture: boolean) =>
  request<{ uploadUrl: string; s3Key: string }>('/api/presign-upload', {
    method: 'POST',
    body: isProfilePicture
      ? { fileName: file.name, fileType: file.type, isProfilePicture: true }
      : { fileName: file.name, fileType: file.type },
  });

/** PUT the file to the presigned address: no bearer token, the file's type as Content-Type. */
function putFile(url: string, file: File, onProgress?: (fraction: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('Content-Type', file.type);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && onProgress) onProgress(e.loaded / e.total);
    };
    xhr.onload = () =>
      xhr.status >= 200 && xhr.status < 300
        ? resolve()
        : reject(new ApiError(xhr.status, `The storage refused the upload (${xhr.status}): ${xhr.responseText}`));
    // An S3 server's refusal (expired or tampered link) carries no CORS headers, so the browser
    // reports it as a network error: status 0, no body to read.
    xhr.onerror = () =>
      reject(new ApiError(0, 'Upload failed: the storage refused the upload link or could not be reached'));
    xhr.onabort = () => reject(new ApiError(0, 'Upload aborted'));
    xhr.send(file);
  });
}

export async function createPost(
  file: File,
  caption: string,
  isAnonymous: boolean,
  onProgress?: (fraction: number) => void,
  altText = '',
): Promise<Post> {
  const { uploadUrl, s3Key } = await presignUpload(file, false);
  await putFile(uploadUrl, file, onProgress);
  return request<Post>('/api/create-post', { method: 'POST', body: { s3Key, caption, isAnonymous, altText } });
}

/** The author describes their photo anew ('' takes the description away). */
export const updateAltText = (postId: number, altText: string) =>
  request<{ postid: number; altText: string }>(`/api/post?postId=${postId}`, { method: 'PATCH', body: { altText } });

export async function changeProfilePicture(
  file: File,
  onProgress?: (fraction: number) => void,
): Promise<{ profilePictureUrl: string }> {
  const { uploadUrl, s3Key } = await presignUpload(file, true);
  await putFile(uploadUrl, file, onProgress);
  return request<{ profilePictureUrl: string }>('/api/create-post', {
    method: 'POST',
    body: { s3Key, isProfilePicture: true },
  });
}
