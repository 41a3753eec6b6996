// Run inline in index.html right after #root (web/vite.config.ts bundles it and puts it there):
// the server may have put a screen's first render in #root (server/src/web/prerender.ts) so
// it shows before the app's JavaScript. Dropped when it is not this address's or this session's
// (src/early-requests.ts sets data-session): a signed-in person never sees the landing page
// flash, a visitor never sees the app's bar, and a page the service worker kept for another
// screen shows nothing stale. Allowed by its hash in the CSP, like every inline script.
import { pagePath } from '@/app/screens';

const first = document.getElementById('root')?.firstElementChild;
if (
  first?.hasAttribute('data-prerendered') &&
  (first.getAttribute('data-path') !== pagePath(location.pathname) ||
    first.getAttribute('data-session') !== document.documentElement.getAttribute('data-session'))
) {
  first.remove();
}
