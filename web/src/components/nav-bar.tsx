import { useEffect } from 'react';
import { NavLink, useLocation } from 'react-router-dom';
import { Avatar } from '@/components/avatar';
import { BeerIcon, BellIcon, CompassIcon, HomeIcon, PlusIcon, SearchIcon, ShieldIcon } from '@/components/icons';
import { getOwnSummary } from '@/lib/api/feeds';
import { getMe } from '@/lib/api/people';
import { useServerName } from '@/lib/server-name';
import { useMe } from '@/lib/me-context';
import { pageSettled } from '@/lib/page-settled';
import { useUnreadNotifications } from '@/lib/unread-notifications';
import styles from './nav-bar.module.css';

const linkClass = ({ isActive }: { isActive: boolean }) => (isActive ? `${styles.item} ${styles.active}` : styles.item);

/**
 * The app's navigation: a top bar on wide screens, a bottom tab bar of icons on phones and
 * tablets, as Instagram, Mastodon and Pixelfed have (up to seven tabs for an operator leave no
 * room for words under 1024 px). Every tab's name is its label, kept for screen readers there.
 */
export function NavBar() {
  // The brand is the server's own name, as its tab titles and sign-in pages are (issue 48).
  const serverName = useServerName();
  const { me, updateMe } = useMe();
  const { pathname } = useLocation();
  const onAccount = pathname.startsWith('/app/account');
  const unread = useUnreadNotifications(true);

  // The avatar needs the user's picture; the own-profile screen loads it itself. Asked once
  // the screen has loaded (lib/page-settled.ts), as is everything the nav bar asks for.
  useEffect(() => {
    if (me || onAccount) return;
    const ac = new AbortController();
    void pageSettled()
      .then(() => getOwnSummary(ac.signal))
      .then((r) => updateMe({ username: r.username, email: r.email, profilePictureUrl: r.profilePictureUrl }))
      .catch(() => {});
    return () => ac.abort();
  }, [me, onAccount, updateMe]);

  // Whether to show the operator's link and the suspension notice: asked once per tab.
  const knowsRole = me?.isOperator !== undefined;
  useEffect(() => {
    if (knowsRole) return;
    const ac = new AbortController();
    void pageSettled()
      .then(() => getMe(ac.signal))
      .then((r) => updateMe({ isOperator: r.isOperator, suspension: r.suspension }))
      .catch(() => {});
    return () => ac.abort();
  }, [knowsRole, updateMe]);

  return (
    <header className={styles.bar}>
      <div className={styles.inner}>
        <NavLink to="/app/follow-feed" className={styles.brand} aria-label={`${serverName} home`}>
          <span className={styles.brandMark}>
            <BeerIcon size={22} />
          </span>
          <span className={styles.brandText}>{serverName}</span>
        </NavLink>
        <nav aria-label="Main" className={styles.nav}>
          <NavLink to="/app/follow-feed" className={linkClass}>
            {({ isActive }) => (
              <>
                <HomeIcon filled={isActive} />
                <span className={styles.label}>Home</span>
              </>
            )}
          </NavLink>
          <NavLink to="/app/discover" className={linkClass}>
            {({ isActive }) => (
              <>
                <CompassIcon filled={isActive} />
                <span className={styles.label}>Discover</span>
              </>
            )}
          </NavLink>
          <NavLink to="/app/create-post" className={({ isActive }) => `${linkClass({ isActive })} ${styles.create}`}>
            <span className={styles.createIcon}>
              <PlusIcon />
            </span>
            <span className={styles.label}>Create</span>
          </NavLink>
          <NavLink to="/app/search-profile" className={linkClass}>
            <SearchIcon />
            <span className={styles.label}>Search</span>
          </NavLink>
          <NavLink
            to="/app/notifications"
            className={linkClass}
            aria-label={unread > 0 ? `Notifications, ${unread} unread` : 'Notifications'}
          >
            {({ isActive }) => (
              <>
                <span className={styles.bell}>
                  <BellIcon filled={isActive} />
                  {unread > 0 && (
                    <span className={styles.badge} aria-hidden="true">
                      {unread > 99 ? '99+' : unread}
                    </span>
                  )}
                </span>
                {/* The screen's own title, so the words a person sees, says (voice control) and hears agree (WCAG 2.5.3). */}
                <span className={styles.label} aria-hidden="true">
                  Notifications
                </span>
              </>
            )}
          </NavLink>
          {me?.isOperator && (
            <NavLink to="/app/admin" className={linkClass}>
              <ShieldIcon />
              <span className={styles.label}>Admin</span>
            </NavLink>
          )}
          <NavLink to="/app/account" className={linkClass}>
            {me?.profilePictureUrl ? (
              <Avatar name={me.username} pictureUrl={me.profilePictureUrl} size={24} className={styles.navAvatar} decorative />
            ) : (
              <Avatar name={null} fallbackMug size={24} className={styles.navAvatar} decorative />
            )}
            <span className={styles.label}>Profile</span>
          </NavLink>
        </nav>
      </div>
    </header>
  );
}
