import { getDiscoverPosts, type PageParams, type Post } from '@/lib/api';
import { getToken } from '@/lib/session';

/** Posts on each page of a feed (components/feed.tsx). */
export const FEED_PAGE = 10;

/** A prefetched page older than this is not used: the feed asks afresh. */
const FRESH_MS = 15_000;

let pending: { at: number; page: Promise<Post[]> } | null = null;

/**
 * Opening Discover with a session: its first page is asked for as soon as the app
 * starts (main.tsx), instead of once the screen's chunk has loaded and rendered,
 * so the first photo (the page's largest paint) can start loading a round trip sooner.
 */
export function prefetchDiscover(): void {
  if (window.location.pathname.replace(/\/+$/, '') !== '/app/discover' || getToken() === null) return;
  const page = getDiscoverPosts({ limit: FEED_PAGE });
  // Whoever takes the page sees a failure; one never taken is not an unhandled rejection.
  page.catch(() => undefined);
  pending = { at: performance.now(), page };
}

/** getDiscoverPosts, answered once by the prefetched first page while it is fresh. */
export function discoverPage(params: PageParams): Promise<Post[]> {
  const prefetched = pending;
  pending = null;
  if (prefetched && params.cursor === undefined && params.limit === FEED_PAGE && performance.now() - prefetched.at < FRESH_MS) {
    return prefetched.page;
  }
  return getDiscoverPosts(params);
}
