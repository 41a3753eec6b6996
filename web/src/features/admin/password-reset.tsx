import { useId, useState } from 'react';
import buttons from '@/components/button.module.css';
import form from '@/components/form.module.css';
import { makePasswordReset, type ResetLink } from '@/lib/api/moderation';
import { useSubmit } from '@/lib/use-submit';
import styles from './password-reset.module.css';

/**
 * The operator makes a one-time password-reset link for a person who lost theirs
 * (embedded provider): it works once, for 24 hours, and the operator hands it over
 * (docs/self-hosting.md, "Lost passwords"). When the server sends e-mail the
 * person also gets it at the address of their account.
 */
export function PasswordReset() {
  const [username, setUsername] = useState('');
  const submit = useSubmit('The link could not be made. Please try again.');
  const [made, setMade] = useState<(ResetLink & { username: string }) | null>(null);
  const [copied, setCopied] = useState(false);
  const inputId = useId();
  const linkId = useId();

  async function make(e: React.FormEvent) {
    e.preventDefault();
    const name = username.trim();
    if (submit.busy) return;
    if (name === '') return submit.setError('Type the username of the person who lost their password.');
    setMade(null);
    setCopied(false);
    await submit.run(async () => {
      setMade({ username: name, ...(await makePasswordReset(name)) });
      setUsername('');
    });
  }

  async function copy() {
    if (!made) return;
    try {
      await navigator.clipboard.writeText(made.url);
      setCopied(true);
    } catch {
      // No clipboard (an http page): the link stays selectable in its field.
      (document.getElementById(linkId) as HTMLInputElement | null)?.select();
    }
  }

  return (
    <div className={styles.card}>
      <p className={styles.text}>
        For someone who lost their password: the link lets them choose a new one. It works once, for 24 hours, and signs out every
        device that used the old password. A newer link replaces an unused one.
      </p>
      <form onSubmit={make} aria-label="Make a password reset link" noValidate>
        <label htmlFor={inputId} className={form.label}>
          Username
        </label>
        <div className={styles.line}>
          <input
            id={inputId}
            className={`${form.input} ${styles.grow}`}
            value={username}
            onChange={(e) => setUsername(e.target.value)}
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            maxLength={200}
          />
          <button type="submit" className={buttons.primary} disabled={submit.busy}>
            {submit.busy ? 'Making...' : 'Make link'}
          </button>
        </div>
      </form>
      {submit.error && (
        <p role="alert" className={form.error}>
          {submit.error}
        </p>
      )}
      {made && (
        <div className={styles.made} role="status">
          <label htmlFor={linkId} className={form.label}>
            Reset link for {made.username}
          </label>
          <div className={styles.line}>
            <input id={linkId} className={`${form.input} ${styles.grow} ${styles.link}`} value={made.url} readOnly onFocus={(e) => e.target.select()} />
            <button type="button" className={buttons.secondary} onClick={copy}>
              {copied ? 'Copied' : 'Copy'}
            </button>
          </div>
          <p className={styles.text}>
            Works once, until {new Date(made.expiresAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}.{' '}
            {made.emailed ? 'It was also emailed to the address of their account.' : 'Hand it to them yourself: only they should see it.'}
          </p>
        </div>
      )}
    </div>
  );
}
