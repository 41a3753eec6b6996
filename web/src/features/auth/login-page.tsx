import { Navigate } from 'react-router-dom';
import buttons from '@/components/button.module.css';
import { BeerIcon, CameraIcon, HeartIcon } from '@/components/icons';
import { buildLoginUrl, getToken, takeSignInError } from '@/lib/session';
import styles from './login-page.module.css';

// Read once when the page's code loads (every arrival here after a failed sign-in is a full page load).
const signInError = takeSignInError();

/** `/`: the product's front door. Login starts the provider's implicit flow. */
export function LoginPage() {
  if (getToken()) return <Navigate to="/app/account" replace />;
  return (
    <main className={styles.page}>
      <div className={styles.foam} aria-hidden="true" />
      <section className={styles.card}>
        <img className={styles.logo} src="/beer-mug.svg" alt="" width={112} height={112} />
        <h1 className={styles.title}>Shower Beer</h1>
        <p className={styles.tagline}>Crack one open under the water. Share the moment with people who get it.</p>
        {signInError && (
          <p className={styles.error} role="alert">
            {signInError}
          </p>
        )}
        <a className={`${buttons.primary} ${buttons.block} ${styles.login}`} href={buildLoginUrl()}>
          Login
        </a>
        <ul className={styles.points}>
          <li>
            <CameraIcon size={20} /> Post your shower beer moments
          </li>
          <li>
            <BeerIcon size={20} /> Go anonymous when you like
          </li>
          <li>
            <HeartIcon size={20} /> Follow fellow beer lovers
          </li>
        </ul>
      </section>
      <p className={styles.footer}>Cheers responsibly.</p>
    </main>
  );
}
