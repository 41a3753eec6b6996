// The lists of posts: Discover, the Following Feed, the own profile and someone's profile, each
// paged, its first page possibly brought early by index.html (client.ts, `paged`).
import { paged, request } from '@/lib/api/client';
import { apiPaths, LISTS } from '@/lib/first-requests';
import type * as answers from '@server/contract/answers';
import type * as shapes from '@server/contract/api-shapes';
import type { Static } from 'typebox';

/** The own profile with a page of its posts. */
export type UserPosts = Static<typeof shapes.OwnProfile>;
/** Someone's profile with a page of their posts. */
export type ViewedUser = Static<typeof shapes.UserProfile>;

export const discoverPosts = paged<Static<typeof answers.Posts>>(LISTS.discoverPosts);
export const followFeed = paged<Static<typeof answers.Posts>>(LISTS.followFeed);
/** The signed-in user's own profile, with a page of their posts. */
export const ownProfile = paged<UserPosts>(LISTS.ownProfile);
/** The signed-in user's name, e-mail and picture (the own profile with one post), for the navigation bar. */
export const getOwnSummary = (signal?: AbortSignal) => request<UserPosts>(apiPaths.userPosts({ limit: 1 }), { signal });
/** Someone's profile, with a page of their posts (on the second API host). */
export const userProfile = (username: string) => paged<ViewedUser>(LISTS.viewUserPosts(username));
/** A hashtag's posts, newest first, paged like Discover (issue 47). */
export const tagPosts = (tag: string) => paged<Static<typeof answers.Posts>>(LISTS.tagPosts(tag));
