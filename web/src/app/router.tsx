import { lazy, Suspense, type ComponentType } from 'react';
import { matchRoutes, Navigate, useRoutes, type RouteObject } from 'react-router-dom';
import { AppLayout } from '@/app/app-layout';
import { NotFound } from '@/app/not-found';
import type { RouteHandle } from '@/app/route-title';
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

const Login = screen(() => import('@/features/auth/login-page'), (m) => m.LoginPage);
const Account = screen(() => import('@/features/account/account-page'), (m) => m.AccountPage);
const CreatePost = screen(() => import('@/features/create-post/create-post-page'), (m) => m.CreatePostPage);
const Discover = screen(() => import('@/features/discover/discover-page'), (m) => m.DiscoverPage);
const FollowFeed = screen(() => import('@/features/follow-feed/follow-feed-page'), (m) => m.FollowFeedPage);
const SearchProfile = screen(() => import('@/features/search-profile/search-profile-page'), (m) => m.SearchProfilePage);
const Notifications = screen(() => import('@/features/notifications/notifications-page'), (m) => m.NotificationsPage);
const Admin = screen(() => import('@/features/admin/admin-page'), (m) => m.AdminPage);
const Profile = screen(() => import('@/features/profile/profile-page'), (m) => m.ProfilePage);

const titled = (title: RouteHandle['title'], shown?: Screen): { handle: RouteHandle } => ({
  handle: { title, preload: shown?.preload },
});

/** Every route of the app, with its title and its screen's chunk (the handle). */
export const routes: RouteObject[] = [
  {
    path: '/',
    element: (
      <Suspense fallback={<Loading />}>
        <Login.Component />
      </Suspense>
    ),
    ...titled('Shower Beer', Login),
  },
  {
    path: '/app',
    element: <AppLayout />,
    children: [
      { index: true, element: <Navigate to="/app/account" replace /> },
      { path: 'account', element: <Account.Component />, ...titled('Your profile', Account) },
      // The spec's second own-profile route: the parameter is not used.
      { path: 'account/:username', element: <Account.Component />, ...titled('Your profile', Account) },
      { path: 'create-post', element: <CreatePost.Component />, ...titled('New post', CreatePost) },
      { path: 'discover', element: <Discover.Component />, ...titled('Discover', Discover) },
      { path: 'follow-feed', element: <FollowFeed.Component />, ...titled('Following Feed', FollowFeed) },
      { path: 'search-profile', element: <SearchProfile.Component />, ...titled('Search profiles', SearchProfile) },
      { path: 'profile/:username', element: <Profile.Component />, ...titled((params) => params.username ?? 'Profile', Profile) },
      // Not in the spec: likes, comments and follows of yours (docs/api.md, "Notifications").
      { path: 'notifications', element: <Notifications.Component />, ...titled('Notifications', Notifications) },
      // Not in the spec: the operator's page (docs/api.md, "Moderation").
      { path: 'admin', element: <Admin.Component />, ...titled('Moderation', Admin) },
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
