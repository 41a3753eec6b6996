// Every network call of the app lives here; components call these functions, never fetch.
import { getConfig } from '@/lib/config';
import { ADMIN_OVERVIEW, apiPaths, callKey, firstPage, LISTS, type ApiCall, type ApiHost, type ListCall } from '@/lib/first-requests';
import { forgetJoin, joined, joinHeaders, setJoinBlock } from '@/lib/join';
import { endSessionRefused, endSessionUnauthorized, getToken } from '@/lib/session';

/** A first sign-in the server refused to make an account for (server/src/domain/registration-service.ts). */
const REFUSED_SIGN_UP = new Set(['registration_closed', 'invite_required', 'invite_invalid']);

// Posts, comments and profiles exactly as the server's schemas define them (type-only: nothing of the
// server is bundled); a field renamed there fails this app's typecheck.
import type {
  AdminOverviewView as AdminOverview,
  InstanceView as Instance,
  InviteViewShape as Invite,
  JoinRequestShape as JoinRequest,
  NewInviteView as NewInvite,
  RegistrationModeValue as RegistrationMode,
  AdminReportView as AdminReport,
  BlockedPersonView as BlockedPerson,
  CommentView as Comment,
  FollowRequestView as FollowRequest,
  LikeStateView as LikeState,
  MeView as Me,
  ModerationNoticeView as ModerationNotice,
  NotificationGroupView as NotificationGroup,
  OwnProfileView as UserPosts,
  PhotoView as Photo,
  PostEditView as PostEdit,
  PostVersionView as PostVersion,
  PostView as Post,
  PrivacyView as Privacy,
  ProfileMatchView as ProfileResult,
  ReportReasonName as ReportReason,
  UserProfileView as ViewedUser,
} from '@server/api-shapes';

export type {
  AdminOverview,
  Instance,
  Invite,
  JoinRequest,
  NewInvite,
  RegistrationMode,
  AdminReport,
  BlockedPerson,
  Comment,
  FollowRequest,
  LikeState,
  Me,
  ModerationNotice,
  NotificationGroup,
  Photo,
  Post,
  PostEdit,
  PostVersion,
  Privacy,
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
    /** The server's error code (`error` of its answer), when it gave one. */
    readonly code?: string,
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
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept, ...joinHeaders() };
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
    let code: string | undefined;
    try {
      const body = JSON.parse(text) as { message?: string; error?: string };
      message = body.message ?? message;
      code = body.error;
    } catch {
      /* plain text answer */
    }
    // Approval mode: the whole app gives way to "Your account is waiting for an operator" (app/app-layout.tsx).
    if (res.status === 403 && code === 'account_pending') setJoinBlock('pending');
    if (res.status === 403 && code === 'account_rejected') setJoinBlock('rejected');
    if (res.status === 403 && code !== undefined && REFUSED_SIGN_UP.has(code)) {
      if (code === 'invite_invalid') forgetJoin();
      endSessionRefused(message);
    }
    throw new ApiError(res.status, message, code);
  }
  joined();
  return res;
}

// --- early answers -------------------------------------------------------------

/**
 * The answers index.html asked for before the app's code arrived (src/early-requests.ts), kept
 * by the call itself (`${host} ${path}`). Each is used at most once, and only while fresh:
 * after that the app asks the server itself, as it would have without them.
 */
const EARLY_FRESH_MS = 15_000;

/** The early answer to this call, taken (it is used once); undefined when there is none or it is stale. */
function takeEarly(call: ApiCall) {
  const early = window.showerBeerEarly?.[callKey(call)];
  if (!early) return undefined;
  delete window.showerBeerEarly![callKey(call)];
  return performance.now() - early.sentAt > EARLY_FRESH_MS ? undefined : early;
}

/**
 * The 2xx answer to this call if index.html's early request has already brought it, so a screen's
 * first render can show it; taken, so a screen opened again later asks the server afresh. Taken
 * after this task, not at once: React calls a state initialiser twice in a row in StrictMode.
 */
function arrived<T>(call: ApiCall): T | undefined {
  const early = window.showerBeerEarly?.[callKey(call)];
  if (!early?.settled || early.value === undefined || performance.now() - early.sentAt > EARLY_FRESH_MS) return undefined;
  setTimeout(() => {
    if (window.showerBeerEarly?.[callKey(call)] === early) delete window.showerBeerEarly[callKey(call)];
  }, 0);
  return early.value as T;
}

/** Resolves when every early request has been answered, or after `maxWaitMs`, whichever is first (main.tsx). */
export function earlyAnswers(maxWaitMs: number): Promise<void> {
  const pending = Object.values(window.showerBeerEarly ?? {}).filter((e) => !e.settled);
  if (pending.length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, maxWaitMs);
    void Promise.all(pending.map((e) => e.answer)).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

async function request<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  // A screen's first call may have been sent by index.html already: its 2xx answer is this one.
  // Anything else (refused, failed, none) and the call is made here as usual.
  if (opts.method === undefined && opts.body === undefined) {
    const early = await takeEarly({ host: opts.host ?? 'main', path })?.answer;
    if (early !== undefined && !opts.signal?.aborted) return early as T;
  }
  return (await (await call(path, opts)).json()) as T;
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

/**
 * A list a screen opens with (lib/first-requests.ts, LISTS): its page size, each page by cursor
 * (the first without one), and `early()`, the first page if index.html has already brought it.
 */
export interface PagedCall<A> {
  limit: number;
  page(cursor: string | undefined, signal?: AbortSignal): Promise<A>;
  /** The first page, if index.html's early request for it has been answered (2xx): for the screen's first render. */
  early(): A | undefined;
}

const paged = <A>(list: ListCall): PagedCall<A> => ({
  limit: list.limit,
  page: (cursor, signal) => request<A>(list.path({ limit: list.limit, cursor }), { host: list.host, signal }),
  early: () => arrived<A>(firstPage(list)),
});

export const discoverPosts = paged<Post[]>(LISTS.discoverPosts);
export const followFeed = paged<Post[]>(LISTS.followFeed);
/** The signed-in user's own profile, with a page of their posts. */
export const ownProfile = paged<UserPosts>(LISTS.ownProfile);
/** The signed-in user's name, e-mail and picture (the own profile with one post), for the navigation bar. */
export const getOwnSummary = (signal?: AbortSignal) => request<UserPosts>(apiPaths.userPosts({ limit: 1 }), { signal });
/** Someone's profile, with a page of their posts (on the second API host). */
export const userProfile = (username: string) => paged<ViewedUser>(LISTS.viewUserPosts(username));

export const searchProfiles = (username: string) =>
  request<ProfileResult[]>(`/api/search-profiles?username=${encodeURIComponent(username)}`, { credentials: 'include' });

/** `requested`: the account is private, and the follow waits for its answer (docs/api.md, "Private accounts"). */
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

// --- private accounts (docs/api.md, "Private accounts") ---------------------

export const setPrivacy = (isPrivate: boolean) => request<Privacy>('/api/account/privacy', { method: 'PUT', body: { isPrivate } });
export const getFollowRequests = (signal?: AbortSignal) => request<FollowRequest[]>('/api/follow-requests', { signal });
export const approveFollowRequest = (username: string) =>
  request<{ followerCount: number }>(`/api/follow-requests/${encodeURIComponent(username)}/approve`, { method: 'POST' });
export const declineFollowRequest = (username: string) =>
  request<{ declined: true }>(`/api/follow-requests/${encodeURIComponent(username)}`, { method: 'DELETE' });

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

// --- passwords (docs/api.md, "Passwords") -----------------------------------

/** Changes the own password (embedded provider): answers a new token for this session, every other one ends. */
export const changePassword = (currentPassword: string, newPassword: string) =>
  request<{ accessToken: string; expiresIn: number }>('/api/account/password', { method: 'PUT', body: { currentPassword, newPassword } });
/** An operator's one-time reset link for a person (valid 24 hours); also e-mailed when the server sends e-mail. */
export const makePasswordReset = (username: string) =>
  request<{ url: string; expiresAt: string; emailed: boolean }>(`/api/admin/users/${encodeURIComponent(username)}/password-reset`, {
    method: 'POST',
  });

// --- notifications (docs/api.md, "Notifications") ---------------------------

export const getUnreadNotifications = (signal?: AbortSignal) =>
  request<{ unread: number; followRequests: number }>('/api/notifications/unread', { signal });
export const notifications = paged<NotificationGroup[]>(LISTS.notifications);
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
export const getAdminOverview = (signal?: AbortSignal) => request<AdminOverview>(ADMIN_OVERVIEW.path, { signal });
/** The operator's overview, if index.html's early request has already brought it (for the page's first render). */
export const earlyAdminOverview = () => arrived<AdminOverview>(ADMIN_OVERVIEW);
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

/**
 * An album (docs/api.md, "Albums"): every photo presigned and sent at once, then one
 * create-post with them in order. `onProgress` gets the share of all bytes sent and how many
 * photos have arrived. A refused create-post rejects with the server's message (ApiError).
 */
export async function createAlbum(
  photos: { file: File; altText: string }[],
  caption: string,
  isAnonymous: boolean,
  onProgress?: (fraction: number, done: number) => void,
): Promise<Post> {
  const sent = photos.map(() => 0);
  let done = 0;
  const total = photos.reduce((sum, p) => sum + (p.file.size || 1), 0);
  const report = () => onProgress?.(photos.reduce((sum, p, i) => sum + sent[i]! * (p.file.size || 1), 0) / total, done);
  const keys = await Promise.all(
    photos.map(async ({ file }, i) => {
      const { uploadUrl, s3Key } = await presignUpload(file, false);
      await putFile(uploadUrl, file, (fraction) => {
        sent[i] = fraction;
        report();
      });
      sent[i] = 1;
      done++;
      report();
      return s3Key;
    }),
  );
  return request<Post>('/api/create-post', {
    method: 'POST',
    body: { caption, isAnonymous, photos: photos.map((p, i) => ({ s3Key: keys[i]!, altText: p.altText })) },
  });
}

/** The author describes a photo anew, by its place (0 the first; '' takes the description away): an edit, as editPost's. */
export const updateAltText = (postId: number, altText: string, index = 0) =>
  request<PostEdit>(`/api/post?postId=${postId}`, { method: 'PATCH', body: { photos: [{ index, altText }] } });

/** The author changes the caption and the photos' descriptions (docs/api.md, "Editing a post"). */
export const editPost = (
  postId: number,
  changes: { caption: string; altText: string } | { caption: string; photos: Array<{ index: number; altText: string }> },
) =>
  request<PostEdit>(`/api/post?postId=${postId}`, { method: 'PATCH', body: changes });

/** A post's text now and before each edit, newest first. */
export const getPostVersions = (postId: number) => request<PostVersion[]>(`/api/post-versions?postId=${postId}`);

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

// --- the server's own page and who may join (docs/registration.md) ---------

/** GET /api/instance needs no token: asked without one, so a signed-out page can call it. */
export async function getInstance(signal?: AbortSignal): Promise<Instance> {
  const res = await fetch(`${baseUrl('main')}/api/instance`, { headers: { accept: 'application/json' }, signal });
  if (!res.ok) throw new ApiError(res.status, `The server's details could not be loaded (${res.status}).`);
  return (await res.json()) as Instance;
}
export interface InstanceChange {
  name?: string;
  description?: string;
  /** One rule a line. */
  rules?: string;
  registrationMode?: RegistrationMode;
  membersCanInvite?: boolean;
}
export const updateInstance = (change: InstanceChange) => request<Instance>('/api/admin/instance', { method: 'PUT', body: change });
export const getJoinRequests = () => request<{ requests: JoinRequest[] }>('/api/admin/join-requests');
export const approveJoin = (username: string) =>
  request<Done>(`/api/admin/join-requests/${encodeURIComponent(username)}/approve`, { method: 'POST', body: {} });
export const rejectJoin = (username: string) =>
  request<Done>(`/api/admin/join-requests/${encodeURIComponent(username)}/reject`, { method: 'POST', body: {} });
export const getInvites = () => request<{ invites: Invite[] }>('/api/invites');
export const createInvite = (expiresInHours: number, maxUses: number) =>
  request<NewInvite>('/api/invites', { method: 'POST', body: { expiresInHours, maxUses } });
export const revokeInvite = (id: number) => request<Done>(`/api/invites/${id}`, { method: 'DELETE', body: {} });
