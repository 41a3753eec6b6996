import { useEffect } from 'react';
import { matchRoutes, useLocation, type Params, type RouteObject } from 'react-router-dom';
import { PRODUCT_NAME } from '@/lib/config';
import { useServerName } from '@/lib/server-name';

/** What a route puts in the tab's title (router.tsx gives it as the route's `handle`). */
export interface RouteHandle {
  title: string | ((params: Params) => string);
  /** Loads the screen's chunk ahead of its first render (router.tsx). */
  preload?: () => Promise<unknown>;
}

/**
 * Keeps document.title on the screen shown ("Discover · Shower Beer"), from the deepest
 * matched route that names one: each screen has its own title (WCAG 2.4.2), which screen
 * readers read when the tab changes and which tells tabs and history entries apart.
 */
export function RouteTitle({ routes }: { routes: RouteObject[] }) {
  const location = useLocation();
  const matches = matchRoutes(routes, location) ?? [];
  const match = [...matches].reverse().find((m) => (m.route.handle as RouteHandle | undefined)?.title);
  const handle = match?.route.handle as RouteHandle | undefined;
  const title = handle ? (typeof handle.title === 'function' ? handle.title(match!.params) : handle.title) : '';
  // A save on the operator page renames the server: the title follows at once, not at the next reload.
  const name = useServerName();
  useEffect(() => {
    document.title = title && title !== PRODUCT_NAME ? `${title} · ${name}` : name;
  }, [title, name]);
  return null;
}
