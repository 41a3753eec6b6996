import { useId, useState } from 'react';
import buttons from '@/components/button.module.css';
import form from '@/components/form.module.css';
import { deleteAccount } from '@/lib/api/people';
import { getConfig } from '@/lib/config';
import { logout } from '@/lib/session';
import { errorText } from '@/lib/use-submit';
import styles from './account-page.module.css';

/**
 * "Delete account" on the own profile: a second step asks for the username, so
 * one stray tap cannot remove everything. After the removal the session ends.
 */
export function DeleteAccount({ username }: { username: string }) {
  const [asking, setAsking] = useState(false);
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const inputId = useId();
  const { auth } = getConfig();
  const matches = typed.trim().toLowerCase() === username.toLowerCase();

  async function remove(e: React.FormEvent) {
    e.preventDefault();
    if (!matches || busy) return;
    setBusy(true);
    setError(null);
    try {
      await deleteAccount(typed.trim());
      logout();
    } catch (err) {
      setError(errorText(err, 'Your account could not be deleted. Please try again.'));
      setBusy(false);
    }
  }

  if (!asking) {
    return (
      <button type="button" className={`${buttons.danger} ${form.opener}`} onClick={() => setAsking(true)}>
        Delete account
      </button>
    );
  }
  return (
    <form className={form.dangerStep} onSubmit={remove} aria-label="Delete account">
      <p className={styles.confirmText}>
        This deletes your account with all your posts, comments, likes and follows, for good. To confirm, type your username{' '}
        <strong>{username}</strong>.
      </p>
      {auth.provider !== 'embedded' && (
        // With Keycloak (or another provider) the name and password live there, not here: say so
        // rather than let people think they are gone. Signing in again starts an empty account.
        <p className={styles.confirmText}>
          Your sign-in account (your username and password) is kept by the sign-in service, not by Shower Beer, and
          stays. Signing in with it again starts a new, empty account here.
          {auth.accountUrl && (
            <>
              {' '}
              <a href={auth.accountUrl} target="_blank" rel="noopener noreferrer">
                Manage or delete your sign-in account
              </a>
              .
            </>
          )}
        </p>
      )}
      <label htmlFor={inputId} className={form.label}>
        Your username
      </label>
      <input
        id={inputId}
        className={form.input}
        value={typed}
        onChange={(e) => setTyped(e.target.value)}
        autoComplete="off"
        autoCapitalize="none"
        spellCheck={false}
        maxLength={200}
      />
      {error && (
        <p role="alert" className={form.error}>
          {error}
        </p>
      )}
      <div className={form.actions}>
        <button type="button" className={`${buttons.secondary} ${form.grow}`} onClick={() => setAsking(false)} disabled={busy}>
          Cancel
        </button>
        <button type="submit" className={`${buttons.danger} ${form.grow}`} disabled={!matches || busy}>
          {busy ? 'Deleting...' : 'Delete for good'}
        </button>
      </div>
    </form>
  );
}
