import { renderToString } from 'react-dom/server';
import { matchRoutes, StaticRouter } from 'react-router-dom';
import type { RouteHandle } from '@/app/route-title';
import { AppRoutes, routes } from '@/app/router';
import { SCREENS } from '@/app/screens';
import { setConfig, type AppConfig } from '@/lib/config';
import { TOKEN_KEY } from '@/lib/first-requests';
import { MeProvider } from '@/lib/me-context';
import type { Prerendered } from '@server/prerender';

// What the server puts in index.html's #root for a path: the first render as HTML, and whether it
// is the signed-in one (declared by server/src/web/prerender.ts, which reads this answer).
// prerender/drop-stale.ts drops it when the browser's session says otherwise, and the app's first
// render replaces it.

/**
 * The screens whose first render needs no data (`prerender` in app/screens.ts): the landing
 * page, and the create-post and search screens with the navigation bar. Their largest paint is
 * in this HTML. The screens that show data are not prerendered: their largest paint is the data,
 * and painting their navigation bar early only delayed it (Discover's first photo, docs/performance.md).
 * A pattern with a parameter has no one page to render: only plain paths are.
 */
const PRERENDERED = SCREENS.filter((s) => s.prerender).flatMap((s) => s.paths.filter((p) => !p.includes(':')));

/**
 * Renders each path as the app's first render shows it, storage being what it holds for
 * a visitor (the landing page) or a signed-in person (/app). Runs in a worker thread whose
 * sessionStorage and localStorage are in memory (prerender/worker.ts).
 */
export async function renderPages(config: AppConfig): Promise<Record<string, Prerendered>> {
  setConfig(config);
  const pages: Record<string, Prerendered> = {};
  for (const path of PRERENDERED) {
    const signedIn = path.startsWith('/app');
    sessionStorage.clear();
    localStorage.clear();
    if (signedIn) sessionStorage.setItem(TOKEN_KEY, 'prerender');
    // The screen's chunk first, so its lazy component renders at once instead of the Loading fallback (app/router.tsx).
    await Promise.all((matchRoutes(routes, path) ?? []).map((m) => (m.route.handle as RouteHandle | undefined)?.preload?.()));
    const html = renderToString(
      <MeProvider>
        <StaticRouter location={path}>
          <AppRoutes />
        </StaticRouter>
      </MeProvider>,
    );
    // A style attribute in markup is refused by the Content-Security-Policy (style-src 'self');
    // React sets the app's styles through the DOM, which it allows. Such a page is left out.
    if (/<[^>]+\sstyle="/.test(html)) {
      console.warn(`prerender: ${path} has a style attribute; not prerendered`);
      continue;
    }
    pages[path] = { html, signedIn };
  }
  sessionStorage.clear();
  return pages;
}
