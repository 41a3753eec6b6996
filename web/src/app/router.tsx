import { lazy, Suspense } from 'react';
import { createBrowserRouter, Navigate } from 'react-router-dom';
import { AppLayout } from '@/app/app-layout';
import { NotFound } from '@/app/not-found';
import { RouteTitle, type RouteHandle } from '@/app/route-title';
import { Loading } from '@/components/status';

// Every screen is its own chunk: the login page ships no feed code, and the reverse.
const LoginPage = lazy(() => import('@/features/auth/login-page').then((m) => ({ default: m.LoginPage })));
const AccountPage = lazy(() => import('@/features/account/account-page').then((m) => ({ default: m.AccountPage })));
const CreatePostPage = lazy(() =>
  import('@/features/create-post/create-post-page').then((m) => ({ default: m.CreatePostPage })),
);
const DiscoverPage = lazy(() => import('@/features/discover/discover-page').then((m) => ({ default: m.DiscoverPage })));
const FollowFeedPage = lazy(() =>
  import('@/features/follow-feed/follow-feed-page').then((m) => ({ default: m.FollowFeedPage })),
);
const SearchProfilePage = lazy(() =>
  import('@/features/search-profile/search-profile-page').then((m) => ({ default: m.SearchProfilePage })),
);
const NotificationsPage = lazy(() =>
  import('@/features/notifications/notifications-page').then((m) => ({ default: m.NotificationsPage })),
);
const AdminPage = lazy(() => import('@/features/admin/admin-page').then((m) => ({ default: m.AdminPage })));
const ProfilePage = lazy(() => import('@/features/profile/profile-page').then((m) => ({ default: m.ProfilePage })));

const titled = (title: RouteHandle['title']): { handle: RouteHandle } => ({ handle: { title } });

export const router = createBrowserRouter([
  {
    path: '/',
    element: (
      <>
        <RouteTitle />
        <Suspense fallback={<Loading />}>
          <LoginPage />
        </Suspense>
      </>
    ),
    ...titled('Shower Beer'),
  },
  {
    path: '/app',
    element: <AppLayout />,
    children: [
      { index: true, element: <Navigate to="/app/account" replace /> },
      { path: 'account', element: <AccountPage />, ...titled('Your profile') },
      // The spec's second own-profile route: the parameter is not used.
      { path: 'account/:username', element: <AccountPage />, ...titled('Your profile') },
      { path: 'create-post', element: <CreatePostPage />, ...titled('New post') },
      { path: 'discover', element: <DiscoverPage />, ...titled('Discover') },
      { path: 'follow-feed', element: <FollowFeedPage />, ...titled('Following Feed') },
      { path: 'search-profile', element: <SearchProfilePage />, ...titled('Search profiles') },
      { path: 'profile/:username', element: <ProfilePage />, ...titled((params) => params.username ?? 'Profile') },
      // Not in the spec: likes, comments and follows of yours (docs/api.md, "Notifications").
      { path: 'notifications', element: <NotificationsPage />, ...titled('Notifications') },
      // Not in the spec: the operator's page (docs/api.md, "Moderation").
      { path: 'admin', element: <AdminPage />, ...titled('Moderation') },
      { path: '*', element: <NotFound />, ...titled('Page not found') },
    ],
  },
  {
    path: '*',
    element: (
      <>
        <RouteTitle />
        <NotFound standalone />
      </>
    ),
    ...titled('Page not found'),
  },
]);
