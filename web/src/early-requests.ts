// Run inline in index.html (web/vite.config.ts bundles it on its own and puts it in the page),
// before the app's JavaScript has arrived: with a session, the API calls the opened screen
// starts with (the screen table, app/screens.ts) are sent at once, so their answers are usually here by
// the time the app renders, and the app's first render can be the whole screen instead of a
// Loading placeholder (lib/api/early.ts takes them). On a feed, the first photo, the screen's
// largest paint, starts loading as soon as the page's answer names it; on a profile, the first
// row of thumbnails; on the operator's page, the first reported photo. On a screen with
// dates, the browser's date formatting is set up meanwhile (app/screens.ts, showsDates).
//
// It reads only what the page already has (the token in sessionStorage, the run-time config
// the server inlined as #app-config, parsed here once for the app too: lib/config.ts) and sends each request exactly as lib/api/client.ts would. A
// refused or failed answer is dropped: the app then asks again and handles it as usual.
import { firstRequests, showsDates } from '@/app/screens';
import { inlineConfig } from '@/lib/config';
import { callKey, GRID_FIRST_ROW, TOKEN_KEY, type EarlyAnswer, type FirstRequest } from '@/lib/first-requests';
import { photoSizes, photoSrcSet, type PhotoRenditions } from '@/lib/photo-frame';

function preload(attributes: { href?: string; imageSrcset?: string; imageSizes?: string }) {
  const link = document.createElement('link');
  link.rel = 'preload';
  link.as = 'image';
  link.fetchPriority = 'high';
  Object.assign(link, attributes);
  document.head.appendChild(link);
}

/** A feed's first photo, with the card's srcset and sizes (components/post-card.tsx). */
function preloadFeedPhoto(page: unknown) {
  const post = Array.isArray(page) ? (page[0] as PhotoRenditions | undefined) : undefined;
  if (!post || typeof post.s3Url !== 'string') return;
  const srcset = photoSrcSet(post);
  preload(srcset ? { imageSrcset: srcset, imageSizes: photoSizes(post.width, post.height) } : { href: post.s3Url });
}

/** A profile's picture and the first row of its grid, as the profile screens and components/post-grid.tsx show them. */
function preloadGridRow(answer: unknown) {
  const profile = answer as { posts?: unknown; profilePictureUrl?: unknown } | undefined;
  if (typeof profile?.profilePictureUrl === 'string' && profile.profilePictureUrl) preload({ href: profile.profilePictureUrl });
  const posts = profile?.posts;
  if (!Array.isArray(posts)) return;
  for (const post of posts.slice(0, GRID_FIRST_ROW) as { thumbnailUrl?: string | null; s3Url?: string }[]) {
    const href = post.thumbnailUrl || post.s3Url;
    if (typeof href === 'string' && href) preload({ href });
  }
}

/** The operator page's first reported photo, as features/admin/admin-page.tsx shows it (comment reports have none). */
function preloadReportThumb(answer: unknown) {
  const reports = (answer as { reports?: unknown } | undefined)?.reports;
  if (!Array.isArray(reports)) return;
  const first = (reports as { thumbnailUrl?: unknown }[]).find((r) => typeof r?.thumbnailUrl === 'string' && r.thumbnailUrl);
  if (first) preload({ href: first.thumbnailUrl as string });
}

function send(request: FirstRequest, token: string, baseUrl: string): EarlyAnswer {
  const early: EarlyAnswer = { sentAt: performance.now(), answer: Promise.resolve(undefined), settled: false };
  early.answer = fetch(`${baseUrl}${request.path}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } })
    .then((res) => (res.ok ? (res.json() as Promise<unknown>) : undefined))
    .catch(() => undefined)
    .then((value) => {
      early.value = value;
      early.settled = true;
      if (request.preload === 'feed-photo') preloadFeedPhoto(value);
      else if (request.preload === 'grid-row') preloadGridRow(value);
      else if (request.preload === 'report-thumb') preloadReportThumb(value);
      return value;
    });
  return early;
}

function start() {
  let token: string | null;
  try {
    token = sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return;
  }
  const config = inlineConfig();
  // Which prerendered first screen this page may show (web/index.html): the signed-in one with a
  // session, or when the provider is handing one over in the address (main.tsx takes it).
  document.documentElement.dataset.session = token || window.location.hash.includes('access_token=') ? 'in' : 'out';
  if (!token || !config?.api) return;
  const { pathname } = window.location;
  const early: Record<string, EarlyAnswer> = {};
  for (const request of firstRequests(pathname)) {
    const baseUrl = (request.host === 'second' ? config.api.secondBaseUrl : config.api.baseUrl) ?? '';
    early[callKey(request)] = send(request, token, baseUrl);
  }
  window.showerBeerEarly = early;
  // The browser's date formatting set up while the network is what everyone waits for, not
  // during the first render (app/screens.ts): its first use loads the locale's data
  // (docs/performance.md gives the time it takes). In a task of its own after the answers have been handled,
  // so it does not hold up the first photo's preload that an answer starts.
  if (showsDates(pathname)) {
    void Promise.all(Object.values(early).map((e) => e.answer)).then(() => setTimeout(() => new Intl.DateTimeFormat().format(0), 0));
  }
}

start();
