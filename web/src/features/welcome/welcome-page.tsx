import { useEffect } from 'react';
import { Link } from 'react-router-dom';
import { Feed } from '@/components/feed';
import page from '@/components/page.module.css';
import { discoverPosts } from '@/lib/api/feeds';
import { getConfig } from '@/lib/config';
import { useMe } from '@/lib/me-context';
import { welcomeShown } from '@/lib/session';
import styles from './welcome-page.module.css';

/**
 * `/app/welcome`: where a sign-up lands, once (app/app-layout.tsx sends it here): what to do
 * first on a new server, find people and post a first photo, then everyone's latest posts.
 * A returning sign-in goes to the own profile as before.
 */
export function WelcomePage() {
  const name = getConfig().instance?.name ?? 'Shower Beer';
  const { me } = useMe();
  // Seen: the next load of any screen, or a sign-in, no longer comes here.
  useEffect(welcomeShown, []);
  return (
    <div className={page.page}>
      <section className={styles.welcome} aria-labelledby="welcome-title">
        <h1 id="welcome-title" className={styles.title}>
          Welcome to {name}!
        </h1>
        <p className={styles.lead}>
          {me?.username ? <>You are in, {me.username}. </> : 'You are in. '}Two things to do first:
        </p>
        <ol className={styles.steps}>
          <li>
            <Link to="/app/search-profile" className={styles.step}>
              <span className={styles.stepTitle}>
                Find people <span className={styles.arrow} aria-hidden="true">→</span>
              </span>
              <span className={styles.stepText}>Follow your friends to see their moments in your Following Feed.</span>
            </Link>
          </li>
          <li>
            <Link to="/app/create-post" className={styles.step}>
              <span className={styles.stepTitle}>
                Post your first photo <span className={styles.arrow} aria-hidden="true">→</span>
              </span>
              <span className={styles.stepText}>Share your first shower beer moment!</span>
            </Link>
          </li>
        </ol>
      </section>
      <h2 className={page.sectionTitle}>Latest on {name}</h2>
      <Feed list={discoverPosts} emptyTitle="No posts yet!" emptyText="Be the first to share your shower beer moment." />
    </div>
  );
}
