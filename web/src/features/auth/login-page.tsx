import { useState } from 'react';
import { Navigate, useSearchParams } from 'react-router-dom';
import buttons from '@/components/button.module.css';
import { BeerIcon, CameraIcon, HeartIcon } from '@/components/icons';
import { getConfig } from '@/lib/config';
import { rememberInvite, rememberReason, storedInvite, storedReason } from '@/lib/join';
import { buildLoginUrl, getToken, takeSignInError } from '@/lib/session';
import styles from './login-page.module.css';

// Read once when the page's code loads (every arrival here after a failed sign-in is a full page load).
const signInError = takeSignInError();

const TAGLINE = 'Crack one open under the water. Share the moment with people who get it.';

/**
 * `/`: the product's front door, and the server's own page: its name, description and rules
 * (the operator page sets them). Login starts the provider's implicit flow; an invite link
 * (`/?invite=<code>`) is kept for the first sign-in (lib/join.ts).
 */
export function LoginPage() {
  const [params] = useSearchParams();
  const linkInvite = params.get('invite');
  // Kept before the Login link is made: the embedded provider's sign-up reads it from the link.
  const [invite] = useState(() => {
    if (linkInvite) rememberInvite(linkInvite);
    return linkInvite || storedInvite();
  });
  if (getToken()) return <Navigate to="/app/account" replace />;
  const { auth, instance } = getConfig();
  const name = instance?.name ?? 'Shower Beer';
  const mode = instance?.registrationMode ?? 'open';
  const rules = instance?.rules ?? [];
  return (
    <main className={styles.page}>
      <div className={styles.foam} aria-hidden="true" />
      <section className={styles.card}>
        <img className={styles.logo} src="/beer-mug.svg" alt="" width={112} height={112} />
        <h1 className={styles.title}>{name}</h1>
        <p className={styles.tagline}>{instance?.description || TAGLINE}</p>
        {signInError && (
          <p className={styles.error} role="alert">
            {signInError}
          </p>
        )}
        {invite && mode !== 'closed' ? (
          <p className={styles.note} role="status">
            You are invited to join {name}. Log in or create your account to accept.
          </p>
        ) : (
          <JoinNote mode={mode} name={name} />
        )}
        {mode === 'approval' && !invite && auth.provider !== 'embedded' && <ReasonField />}
        <a className={`${buttons.primary} ${buttons.block} ${styles.login}`} href={buildLoginUrl()}>
          Login
        </a>
        {rules.length > 0 && (
          <section className={styles.rules} aria-labelledby="rules-heading">
            <h2 id="rules-heading" className={styles.rulesTitle}>
              Rules of {name}
            </h2>
            <ol>
              {rules.map((rule, i) => (
                <li key={i}>{rule}</li>
              ))}
            </ol>
            {auth.provider !== 'embedded' && mode !== 'closed' && <p className={styles.rulesNote}>Joining means agreeing to these rules.</p>}
          </section>
        )}
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
        {instance?.contact && <OperatorContact contact={instance.contact} />}
      </section>
      <p className={styles.footer}>Cheers responsibly.</p>
    </main>
  );
}

/** How to reach the people who run the server, as set on the operator page (issue 48): an e-mail address is a link. */
function OperatorContact({ contact }: { contact: string }) {
  const email = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(contact);
  return (
    <p className={styles.contact}>
      Run by its operators: {email ? <a href={`mailto:${contact}`}>{contact}</a> : contact}
    </p>
  );
}

/** What a newcomer needs to know about joining, by the server's registration mode. */
function JoinNote({ mode, name }: { mode: string; name: string }) {
  if (mode === 'invite') return <p className={styles.note}>Joining {name} needs an invite link. Ask someone who is on it for one.</p>;
  if (mode === 'closed') return <p className={styles.note}>{name} is not taking new accounts. If you have one, log in.</p>;
  if (mode === 'approval') return <p className={styles.note}>New accounts are looked at by an operator before they can join in.</p>;
  return null;
}

/** Approval mode with an outside provider: the reason is asked here and sent with the first sign-in. */
function ReasonField() {
  const [reason, setReason] = useState(storedReason);
  return (
    <div className={styles.reason}>
      <label htmlFor="join-reason">Why do you want to join? (for new accounts)</label>
      <textarea
        id="join-reason"
        rows={3}
        maxLength={500}
        value={reason}
        onChange={(e) => {
          setReason(e.target.value);
          rememberReason(e.target.value);
        }}
      />
    </div>
  );
}
