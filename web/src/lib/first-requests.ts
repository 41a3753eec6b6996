// The API calls that open a screen. Both the app (lib/api/ builds these paths with the
// functions below) and index.html's early requests (src/early-requests.ts, run inline before the
// app's code has even arrived, by the screen table app/screens.ts) use this file, so the two
// always ask for the very same URL and the app can take the answer the page already has.
//
// It imports nothing: it is bundled on its own into the inline script (web/vite.config.ts).

/** Where web/src/lib/session.ts keeps the access token (sessionStorage). */
export const TOKEN_KEY = 'sb.accessToken';

/** Posts on each page of a feed (components/feed.tsx). */
const FEED_PAGE = 10;
/** Thumbnails on each page of a profile's grid (own and others'). */
const GRID_PAGE = 30;
/** Groups on each page of the Notifications screen. */
const NOTIFICATIONS_PAGE = 20;

type Query = Record<string, string | number | undefined>;

/** `?a=1&b=2` of the defined, non-empty parameters, in the order given; '' for none. */
export function query(params: Query): string {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') s.set(k, String(v));
  const str = s.toString();
  return str ? `?${str}` : '';
}

export interface Page {
  limit: number;
  cursor?: string;
}

/** The paths of the calls a screen opens with (docs/api.md has them all). */
export const apiPaths = {
  discoverPosts: ({ limit, cursor }: Page) => `/api/discover-posts${query({ limit, cursor })}`,
  followFeed: ({ limit, cursor }: Page) => `/api/followFeed${query({ limit, cursor })}`,
  /** On the second API host. */
  viewUserPosts: (username: string, { limit, cursor }: Page) => `/api/view-user-posts${query({ username, limit, cursor })}`,
  userPosts: ({ limit, cursor }: Page) => `/api/user-posts${query({ limit, cursor })}`,
  notifications: ({ limit, cursor }: Page) => `/api/notifications${query({ limit, cursor })}`,
  /** A hashtag's page (issue 47): `tag` as its link has it (components/rich-text.tsx). */
  tagPosts: (tag: string, { limit, cursor }: Page) => `/api/hashtags/${encodeURIComponent(tag)}${query({ limit, cursor })}`,
  /** The operator's page: figures, open reports, suspensions and the log, in one answer. */
  adminOverview: () => '/api/admin/overview',
};

export type ApiHost = 'main' | 'second';

/** One API call as sent: the host and the path with its query. Its early answer is kept by `${host} ${path}`. */
export interface ApiCall {
  host: ApiHost;
  /** Path and query, as apiPaths builds it. */
  path: string;
}

/** What an early answer is kept by: the call itself (index.html's early requests and lib/api/early.ts). */
export const callKey = (call: ApiCall) => `${call.host} ${call.path}`;

/** A list the app pages through: where it is asked for, and how many items a page has. */
export interface ListCall {
  host: ApiHost;
  path: (page: Page) => string;
  limit: number;
}

/**
 * The lists the screens open with, each with its page size, written once: lib/api/ asks for
 * their pages, and index.html's early requests (by the screen table, app/screens.ts) send their
 * first page, so the two are always the very same call.
 */
export const LISTS = {
  discoverPosts: { host: 'main', path: apiPaths.discoverPosts, limit: FEED_PAGE },
  followFeed: { host: 'main', path: apiPaths.followFeed, limit: FEED_PAGE },
  ownProfile: { host: 'main', path: apiPaths.userPosts, limit: GRID_PAGE },
  viewUserPosts: (username: string): ListCall => ({ host: 'second', path: (page) => apiPaths.viewUserPosts(username, page), limit: GRID_PAGE }),
  notifications: { host: 'main', path: apiPaths.notifications, limit: NOTIFICATIONS_PAGE },
  tagPosts: (tag: string): ListCall => ({ host: 'main', path: (page) => apiPaths.tagPosts(tag, page), limit: FEED_PAGE }),
} satisfies Record<string, ListCall | ((...args: never[]) => ListCall)>;

/** A list's first page, as a call. */
export const firstPage = (list: ListCall): ApiCall => ({ host: list.host, path: list.path({ limit: list.limit }) });

/** The operator's page opens with this one call (not a list). */
export const ADMIN_OVERVIEW: ApiCall = { host: 'main', path: apiPaths.adminOverview() };

export interface FirstRequest extends ApiCall {
  /**
   * What of the answer to load at once, as the screen's largest paint: a feed page's first photo,
   * the first row of a profile's thumbnails (GRID_FIRST_ROW), or the operator page's first
   * reported photo.
   */
  preload?: 'feed-photo' | 'grid-row' | 'report-thumb';
}

/** Thumbnails in a row of the profile grid (components/post-grid.module.css): the first row renders, and is preloaded, first. */
export const GRID_FIRST_ROW = 3;

/** One early request (src/early-requests.ts): the parsed body of a 2xx answer (undefined for anything else), and when it was sent. */
export interface EarlyAnswer {
  sentAt: number;
  answer: Promise<unknown>;
  settled: boolean;
  value?: unknown;
}

declare global {
  interface Window {
    /** The early answers by `${host} ${path}` (lib/api/early.ts takes them). */
    showerBeerEarly?: Record<string, EarlyAnswer>;
  }
}
