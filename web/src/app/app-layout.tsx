import { Suspense } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { NavBar } from '@/components/nav-bar';
import { Loading } from '@/components/status';
import { useJoinBlock } from '@/lib/join';
import { useMe } from '@/lib/me-context';
import { getToken, isLeavingForLogin, welcomePending } from '@/lib/session';
import { useInactivityLogout } from '@/lib/use-inactivity-logout';
import { JoinWaiting } from './join-waiting';
import { WELCOME_PATH } from './screens';

/** Every /app screen: needs a token (else back to /), has the navigation bar and the inactivity time-out. */
export function AppLayout() {
  const signedIn = getToken() !== null;
  // Already on the way to / by a full page load (a refused token): wait for it, do not race it.
  if (!signedIn) return isLeavingForLogin() ? null : <Navigate to="/" replace />;
  return <SignedInLayout />;
}

function SignedInLayout() {
  useInactivityLogout();
  const { me } = useMe();
  const joinBlock = useJoinBlock();
  const { pathname } = useLocation();
  // Right after sign-up: the welcome (features/welcome), not the account settings the sign-in returns to.
  if (welcomePending() && pathname !== WELCOME_PATH) return <Navigate to={WELCOME_PATH} replace />;
  // Approval mode: nothing of the app works for an account an operator has not let in (lib/api/client.ts sets it).
  if (joinBlock) return <JoinWaiting block={joinBlock} />;
  return (
    <>
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <NavBar />
      {/* tabIndex -1: the skip link, and a dialog whose opener went, can move focus here. */}
      <main id="main" tabIndex={-1}>
        {me?.suspension && (
          <p className="suspended-banner" role="status">
            Your account is suspended by an operator: “{me.suspension.reason}”. You can look around, but you cannot post, like,
            comment or follow.
          </p>
        )}
        <Suspense fallback={<Loading />}>
          <Outlet />
        </Suspense>
      </main>
    </>
  );
}
