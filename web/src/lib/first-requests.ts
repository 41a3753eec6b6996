// The API calls that open a screen, by the screen's address. Both the app (lib/api.ts builds
// these paths with the functions below) and index.html's early requests (src/early-requests.ts,
// run inline before the app's code has even arrived) use this file, so the two always ask for
// the very same URL and the app can take the answer the page already has (lib/early.ts).
//
// It imports nothing: it is bundled on its own into the inline script (web/vite.config.ts).

/** Where web/src/lib/session.ts keeps the access token (sessionStorage). */
export const TOKEN_KEY = 'sb.accessToken';

/** Posts on each page of a feed (components/feed.tsx). */
export const FEED_PAGE = 10;
/** Thumbnails on each page of a profile's grid (own and others'). */
export const GRID_PAGE = 30;
/** Groups on each page of the Notifications screen. */
export const NOTIFICATIONS_PAGE = 20;

type Query = Record<string, string | number | undefined>;

/** `?a=1&b=2` of the defined, non-empty parameters, in the order given; '' for none. */
export function query(params: Query): string {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') s.set(k, String(v));
  const str = s.toString();
  return str ? `?${str}` : '';
}

interface Page {
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
  /** The operator's page: figures, open reports, suspensions and the log, in one answer. */
  adminOverview: () => '/api/admin/overview',
};

export type ApiHost = 'main' | 'second';

export interface FirstRequest {
  host: ApiHost;
  /** Path and query, as apiPaths builds it. */
  path: string;
  /**
   * What of the answer to load at once, as the screen's largest paint: a feed page's first photo,
   * the first row of a profile's thumbnails (GRID_FIRST_ROW), or the operator page's first
   * reported photo.
   */
  preload?: 'feed-photo' | 'grid-row' | 'report-thumb';
}

/** Thumbnails in a row of the profile grid (components/post-grid.module.css): the first row renders, and is preloaded, first. */
export const GRID_FIRST_ROW = 3;

/** What the screen at `pathname` asks the API for first (the same calls its code makes on mount). */
export function firstRequests(pathname: string): FirstRequest[] {
  const path = pathname.replace(/\/+$/, '');
  if (path === '/app/discover') return [{ host: 'main', path: apiPaths.discoverPosts({ limit: FEED_PAGE }), preload: 'feed-photo' }];
  if (path === '/app/follow-feed') return [{ host: 'main', path: apiPaths.followFeed({ limit: FEED_PAGE }), preload: 'feed-photo' }];
  if (path === '/app/notifications') return [{ host: 'main', path: apiPaths.notifications({ limit: NOTIFICATIONS_PAGE }) }];
  // Refused (403) for anyone but an operator: the early answer is then dropped and the page asks again.
  if (path === '/app/admin') return [{ host: 'main', path: apiPaths.adminOverview(), preload: 'report-thumb' }];
  if (path === '/app' || path === '/app/account' || /^\/app\/account\/[^/]+$/.test(path)) {
    return [{ host: 'main', path: apiPaths.userPosts({ limit: GRID_PAGE }), preload: 'grid-row' }];
  }
  const profile = /^\/app\/profile\/([^/]+)$/.exec(path);
  if (profile) {
    let username: string;
    try {
      username = decodeURIComponent(profile[1]!);
    } catch {
      return [];
    }
    return [{ host: 'second', path: apiPaths.viewUserPosts(username, { limit: GRID_PAGE }), preload: 'grid-row' }];
  }
  return [];
}

/**
 * Whether the screen at `pathname` shows dates (lib/format.ts). The browser's first date
 * format sets up its locale data, ~25 ms of one core on the machines measured here
 * (docs/performance.md): index.html does it while the app's code is still downloading, instead
 * of in the middle of rendering the first card.
 */
export function showsDates(pathname: string): boolean {
  return /^\/app\/(discover|follow-feed|notifications|admin|account)(\/|$)|^\/app\/?$/.test(pathname);
}

/** One early request (src/early-requests.ts): the parsed body of a 2xx answer (undefined for anything else), and when it was sent. */
export interface EarlyAnswer {
  sentAt: number;
  answer: Promise<unknown>;
  settled: boolean;
  value?: unknown;
}

declare global {
  interface Window {
    /** The early answers by `${host} ${path}` (lib/early.ts takes them). */
    showerBeerEarly?: Record<string, EarlyAnswer>;
  }
}
