// Every screen of the app, once. The router (app/router.tsx), index.html's early requests
// (src/early-requests.ts), the prerender (prerender/render.tsx) and, through what the build
// emits from it (web/vite.config.ts: dist/.vite/screens.json, sw.js's APP_PAGE), the server's
// page hints (server/src/web/web-pages.ts) and the service worker all read it. Adding a screen
// is one entry here plus its folder under features/ (docs/web.md, "Adding a screen").
//
// It imports only lib/first-requests.ts (which imports nothing): it is bundled into the inline
// early-request script, and evaluated in Node by the build.
import { ADMIN_OVERVIEW, firstPage, LISTS, type FirstRequest, type ListCall } from '@/lib/first-requests';

export type Params = Readonly<Record<string, string | undefined>>;

export interface Screen {
  /** The addresses that open it, as React Router patterns (`:name` is one path segment); `/` or under `/app/`. */
  paths: string[];
  /**
   * Its module, `src/features/<chunk>.tsx`, loaded as a chunk of its own; it exports the component
   * named after the file in PascalCase (`discover/discover-page` → `DiscoverPage`).
   */
  chunk: string;
  /** `document.title` (app/route-title.tsx). */
  title: string | ((params: Params) => string);
  /**
   * The API call it opens with, sent by index.html before the app's code arrives and taken by the
   * app's own first call (lib/api/client.ts), with what of its answer to preload as the largest paint.
   */
  first?: (params: Params) => FirstRequest;
  /** Shows dates: index.html sets up the browser's date formatting while the network is waited for. */
  dates?: boolean;
  /** Its first render needs no data: the server puts it in index.html's #root (prerender/render.tsx). */
  prerender?: boolean;
}

/** A feed's first page, with its first photo preloaded as the largest paint. */
const feed = (list: ListCall) => (): FirstRequest => ({ ...firstPage(list), preload: 'feed-photo' });

/** Where `/app` goes (app/router.tsx); early requests and page hints treat `/app` as this screen. */
export const APP_HOME = '/app/account';
/** Where a sign-up lands once (app/app-layout.tsx): what to do first, then everyone's posts. */
export const WELCOME_PATH = '/app/welcome';

export const SCREENS: Screen[] = [
  { paths: ['/'], chunk: 'auth/login-page', title: 'Shower Beer', prerender: true },
  {
    // The spec's second own-profile route: the parameter is not used.
    paths: ['/app/account', '/app/account/:username'],
    chunk: 'account/account-page',
    title: 'Your profile',
    first: () => ({ ...firstPage(LISTS.ownProfile), preload: 'grid-row' }),
    dates: true,
  },
  { paths: ['/app/create-post'], chunk: 'create-post/create-post-page', title: 'New post', prerender: true },
  { paths: ['/app/discover'], chunk: 'discover/discover-page', title: 'Discover', first: feed(LISTS.discoverPosts), dates: true },
  {
    paths: ['/app/tag/:tag'],
    chunk: 'tag/tag-page',
    title: (params) => `#${params.tag ?? ''}`,
    first: (params) => ({ ...firstPage(LISTS.tagPosts(params.tag ?? '')), preload: 'feed-photo' }),
    dates: true,
  },
  { paths: ['/app/follow-feed'], chunk: 'follow-feed/follow-feed-page', title: 'Following Feed', first: feed(LISTS.followFeed), dates: true },
  {
    // Not in the spec: a newcomer's first screen after sign-up (issue 48), with Discover's posts below.
    paths: [WELCOME_PATH],
    chunk: 'welcome/welcome-page',
    title: 'Welcome',
    first: feed(LISTS.discoverPosts),
    dates: true,
  },
  { paths: ['/app/search-profile'], chunk: 'search-profile/search-profile-page', title: 'Search profiles', prerender: true },
  {
    paths: ['/app/profile/:username'],
    chunk: 'profile/profile-page',
    title: (params) => params.username ?? 'Profile',
    first: (params) => ({ ...firstPage(LISTS.viewUserPosts(params.username ?? '')), preload: 'grid-row' }),
  },
  {
    // Not in the spec: likes, comments and follows of yours (docs/api.md, "Notifications").
    paths: ['/app/notifications'],
    chunk: 'notifications/notifications-page',
    title: 'Notifications',
    first: () => firstPage(LISTS.notifications),
    dates: true,
  },
  {
    // Not in the spec: the operator's page (docs/api.md, "Moderation"). Its first call is refused
    // (403) for anyone but an operator: the early answer is then dropped and the page asks again.
    paths: ['/app/admin'],
    chunk: 'admin/admin-page',
    title: 'Moderation',
    first: () => ({ ...ADMIN_OVERVIEW, preload: 'report-thumb' }),
    dates: true,
  },
  {
    // The operator's settings, one tap from the page above (issue 48): the same module, which
    // shows the part its address names; the overview names the operators and says who may see it.
    paths: ['/app/admin/settings'],
    chunk: 'admin/admin-page',
    title: 'Server settings',
    first: () => ADMIN_OVERVIEW,
    dates: true,
  },
];

/** A path pattern as a regular expression source: `:name` is one segment, a trailing slash is allowed. */
export function patternSource(path: string): string {
  const body = path
    .replace(/\/+$/, '')
    .split('/')
    .map((part) => (part.startsWith(':') ? '([^/]+)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('\\/');
  return `^${body}\\/?$`;
}

/** An address as the screens and the prerendered pages are keyed by: without trailing slashes. */
export const pagePath = (pathname: string): string => pathname.replace(/\/+$/, '') || '/';

/** The screen at `pathname` and its parameters (decoded), if any. `/app` is APP_HOME's. */
export function screenAt(pathname: string): { screen: Screen; params: Params } | undefined {
  const trimmed = pagePath(pathname);
  const path = trimmed === '/app' ? APP_HOME : trimmed;
  for (const screen of SCREENS) {
    for (const pattern of screen.paths) {
      const match = new RegExp(patternSource(pattern)).exec(path);
      if (!match) continue;
      const names = pattern.split('/').filter((p) => p.startsWith(':'));
      const params: Record<string, string> = {};
      try {
        names.forEach((name, i) => (params[name.slice(1)] = decodeURIComponent(match[i + 1]!)));
      } catch {
        return undefined;
      }
      return { screen, params };
    }
  }
  return undefined;
}

/** What the screen at `pathname` asks the API for first (the same call its code makes on mount). */
export function firstRequests(pathname: string): FirstRequest[] {
  const at = screenAt(pathname);
  return at?.screen.first ? [at.screen.first(at.params)] : [];
}

/**
 * Whether the screen at `pathname` shows dates (lib/format.ts). The browser's first date format
 * sets up its locale data (docs/performance.md gives the time it takes): index.html does it while
 * the app's code is still downloading, instead of in the middle of rendering the first card.
 */
export const showsDates = (pathname: string): boolean => screenAt(pathname)?.screen.dates === true;

/** The paths the server answers with the app's page, as one regular expression source: `/`, `/app` and everything under it. */
export const APP_PAGE_SOURCE = '^\\/(app(\\/.*)?)?$';

/**
 * What the server and the service worker need of the table, written by the build into
 * dist/.vite/screens.json (web/vite.config.ts): each screen's patterns, its module as the
 * build manifest names it, and whether it is prerendered.
 */
export function screensForServer() {
  for (const s of SCREENS) {
    for (const p of s.paths) if (!new RegExp(APP_PAGE_SOURCE).test(p)) throw new Error(`screen path ${p} is not / or under /app/`);
  }
  return {
    appPage: APP_PAGE_SOURCE,
    home: APP_HOME,
    screens: SCREENS.map((s) => ({
      patterns: s.paths.map(patternSource),
      module: `src/features/${s.chunk}.tsx`,
      prerender: s.prerender === true,
    })),
  };
}
