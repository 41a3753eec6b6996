import { Suspense } from 'react';
import { Navigate, Outlet } from 'react-router-dom';
import { NavBar } from '@/components/nav-bar';
import { Loading } from '@/components/status';
import { getToken } from '@/lib/session';
import { useInactivityLogout } from '@/lib/use-inactivity-logout';

/** Every /app screen: needs a token (else back to /), has the navigation bar and the inactivity time-out. */
export function AppLayout() {
  const signedIn = getToken() !== null;
  if (!signedIn) return <Navigate to="/" replace />;
  return <SignedInLayout />;
}

function SignedInLayout() {
  useInactivityLogout();
  return (
    <>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <NavBar />
      <main id="main">
        <Suspense fallback={<Loading />}>
          <Outlet />
        </Suspense>
      </main>
    </>
  );
}
