// The lists of posts: Discover, the Following Feed, the own profile and someone's profile, each
// paged, its first page possibly brought early by index.html (client.ts, `paged`).
import { paged, request } from '@/lib/api/client';
import type { Post } from '@/lib/api/posts';
import { apiPaths, LISTS } from '@/lib/first-requests';
import type { OwnProfileView as UserPosts, UserProfileView as ViewedUser } from '@server/api-shapes';

export type { UserPosts, ViewedUser };

export const discoverPosts = paged<Post[]>(LISTS.discoverPosts);
export const followFeed = paged<Post[]>(LISTS.followFeed);
/** The signed-in user's own profile, with a page of their posts. */
export const ownProfile = paged<UserPosts>(LISTS.ownProfile);
/** The signed-in user's name, e-mail and picture (the own profile with one post), for the navigation bar. */
export const getOwnSummary = (signal?: AbortSignal) => request<UserPosts>(apiPaths.userPosts({ limit: 1 }), { signal });
/** Someone's profile, with a page of their posts (on the second API host). */
export const userProfile = (username: string) => paged<ViewedUser>(LISTS.viewUserPosts(username));
