import { lazy, Suspense, type ComponentType } from 'react';
import { matchRoutes, Navigate, useRoutes, type RouteObject } from 'react-router-dom';
import { AppLayout } from '@/app/app-layout';
import { NotFound } from '@/app/not-found';
import type { RouteHandle } from '@/app/route-title';
import { APP_HOME, SCREENS } from '@/app/screens';
import { Loading } from '@/components/status';

/** A screen's component, loaded as its own chunk (React.lazy), and a way to load it ahead. */
interface Screen {
  Component: ComponentType;
  /** Loads the chunk; from then on the screen renders without suspending. */
  preload: () => Promise<unknown>;
}

/**
 * Every screen is its own chunk: the login page ships no feed code, and the reverse.
 * Once preloaded (main.tsx does it for the screen opened, before the first render), the
 * lazy component is handed an already-resolved thenable, which React.lazy reads at once:
 * the first render shows the screen itself instead of the Loading fallback and, a moment
 * later, a second render with the screen.
 */
function screen<M>(load: () => Promise<M>, pick: (module: M) => ComponentType): Screen {
  let loaded: ComponentType | null = null;
  const preload = () => load().then((module) => (loaded = pick(module)));
  const Component = lazy(() => {
    if (loaded) {
      const ready = { default: loaded };
      return { then: (resolve: (m: typeof ready) => void) => resolve(ready) } as unknown as Promise<typeof ready>;
    }
    return preload().then((component) => ({ default: component }));
  });
  return { Component, preload };
}

// Every screen's module, each its own chunk (the screen table, app/screens.ts, names which one
// a screen is): `import.meta.glob` makes one lazy import per file, found by the build.
const modules = import.meta.glob<Record<string, ComponentType>>('../features/*/*-page.tsx');

/** `discover/discover-page` → `DiscoverPage`: the component a screen's module exports. */
const componentName = (chunk: string) =>
  chunk
    .split('/')
    .pop()!
    .replace(/(^|-)(\w)/g, (_m, _dash: string, c: string) => c.toUpperCase());

const lazyScreens = new Map(
  SCREENS.map((entry) => {
    const load = modules[`../features/${entry.chunk}.tsx`];
    if (!load) throw new Error(`app/screens.ts: no module src/features/${entry.chunk}.tsx`);
    const name = componentName(entry.chunk);
    return [entry, screen(load, (m) => m[name]!)] as const;
  }),
);

const titled = (title: RouteHandle['title'], shown?: Screen): { handle: RouteHandle } => ({
  handle: { title, preload: shown?.preload },
});

/** The table's screens under `prefix`, as routes relative to it, in the table's order. */
const routesUnder = (prefix: string): RouteObject[] =>
  SCREENS.flatMap((entry) => {
    const shown = lazyScreens.get(entry)!;
    return entry.paths
      .filter((p) => p.startsWith(prefix))
      .map((p) => ({ path: p.slice(prefix.length), element: <shown.Component />, ...titled(entry.title, shown) }));
  });

const landing = SCREENS.find((entry) => entry.paths.includes('/'))!;
const Landing = lazyScreens.get(landing)!;

/** Every route of the app (from the screen table, app/screens.ts), with its title and its screen's chunk (the handle). */
export const routes: RouteObject[] = [
  {
    path: '/',
    element: (
      <Suspense fallback={<Loading />}>
        <Landing.Component />
      </Suspense>
    ),
    ...titled(landing.title, Landing),
  },
  {
    path: '/app',
    element: <AppLayout />,
    children: [
      { index: true, element: <Navigate to={APP_HOME} replace /> },
      ...routesUnder('/app/'),
      { path: '*', element: <NotFound />, ...titled('Page not found') },
    ],
  },
  { path: '*', element: <NotFound standalone />, ...titled('Page not found') },
];

/**
 * The screen the address shows. Declarative routing (useRoutes under a BrowserRouter, app.tsx),
 * not a data router: the app loads its data itself, and react-router's declarative part is less
 * than half its data router's size (38 KB against 91 KB minified), on every screen's first load.
 */
export function AppRoutes() {
  return useRoutes(routes);
}

/** Loads the chunks of the screen the address opens, so the first render can show it (main.tsx). */
export function preloadOpenedScreen(): Promise<unknown> {
  const matches = matchRoutes(routes, window.location) ?? [];
  return Promise.all(matches.map((m) => (m.route.handle as RouteHandle | undefined)?.preload?.()));
}
