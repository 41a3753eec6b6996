import { useId, useState } from 'react';
import buttons from '@/components/button.module.css';
import form from '@/components/form.module.css';
import { ApiError } from '@/lib/api/client';
import { changePassword } from '@/lib/api/people';
import { getConfig } from '@/lib/config';
import { replaceToken } from '@/lib/session';
import { useSubmit } from '@/lib/use-submit';
import styles from './change-password.module.css';

type Problem = { field: 'current' | 'new' | null; message: string };

/**
 * "Change password" on the own profile (embedded provider): the current password,
 * then the new one under the sign-up rules. Every other device signed in with the
 * account is signed out; this one goes on with the new token the server answers
 * (docs/api.md, "Passwords"). With another sign-in service the password lives
 * there, so the profile links to its account page instead, as for deletion.
 */
export function ChangePassword({ username }: { username: string }) {
  const { auth } = getConfig();
  const [open, setOpen] = useState(false);
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [problem, setProblem] = useState<Problem | null>(null);
  const changing = useSubmit((err) => {
    if (err instanceof ApiError) {
      const field = err.code === 'wrong_password' ? 'current' : err.code === 'weak_password' ? 'new' : null;
      setProblem({ field, message: err.message });
    } else {
      setProblem({ field: null, message: 'Your password could not be changed. Please try again.' });
    }
  });
  const [done, setDone] = useState(false);
  const currentId = useId();
  const nextId = useId();
  const hintId = useId();
  const errorId = useId();

  if (auth.provider !== 'embedded') {
    if (!auth.accountUrl) return null;
    return (
      <a className={`${buttons.secondary} ${form.opener}`} href={auth.accountUrl} target="_blank" rel="noopener noreferrer">
        Change password
      </a>
    );
  }

  function close() {
    setOpen(false);
    setCurrent('');
    setNext('');
    setProblem(null);
  }

  async function submit(e: React.FormEvent) {
    e.preventDefault();
    if (changing.busy) return;
    if (current === '') return setProblem({ field: 'current', message: 'Type your current password.' });
    if (next.length < 8) return setProblem({ field: 'new', message: 'Use a password of at least 8 characters.' });
    setProblem(null);
    await changing.run(async () => {
      const { accessToken } = await changePassword(current, next);
      replaceToken(accessToken);
      close();
      setDone(true);
    });
  }

  if (!open) {
    return (
      <>
        <button
          type="button"
          className={`${buttons.secondary} ${form.opener}`}
          onClick={() => {
            setDone(false);
            setOpen(true);
          }}
        >
          Change password
        </button>
        {done && (
          <p className={styles.done} role="status">
            Your password is changed. Every other device signed in with your account was signed out.
          </p>
        )}
      </>
    );
  }

  const describedBy = (field: 'current' | 'new', extra?: string) =>
    [problem?.field === field ? errorId : '', extra ?? ''].filter(Boolean).join(' ') || undefined;
  return (
    <form className={form.step} onSubmit={submit} aria-label="Change password" noValidate>
      <p className={styles.title}>Change password</p>
      <p className={styles.text}>Every other device signed in with your account will be signed out; this one stays signed in.</p>
      {/* For password managers: which account the new password belongs to. */}
      <input type="text" name="username" autoComplete="username" value={username} hidden readOnly />
      <label htmlFor={currentId} className={`${form.label} ${styles.label}`}>
        Current password
      </label>
      <input
        id={currentId}
        className={form.input}
        type="password"
        autoComplete="current-password"
        value={current}
        onChange={(e) => setCurrent(e.target.value)}
        aria-invalid={problem?.field === 'current' || undefined}
        aria-describedby={describedBy('current')}
        maxLength={1000}
      />
      <label htmlFor={nextId} className={`${form.label} ${styles.label}`}>
        New password
      </label>
      <input
        id={nextId}
        className={form.input}
        type="password"
        autoComplete="new-password"
        value={next}
        onChange={(e) => setNext(e.target.value)}
        aria-invalid={problem?.field === 'new' || undefined}
        aria-describedby={describedBy('new', hintId)}
        maxLength={1000}
      />
      <p id={hintId} className={form.hint}>
        At least 8 characters, and not a common password: a few unrelated words work well.
      </p>
      {problem && (
        <p id={errorId} role="alert" className={form.error}>
          {problem.message}
        </p>
      )}
      <div className={`${form.actions} ${styles.actions}`}>
        <button type="button" className={`${buttons.secondary} ${form.grow}`} onClick={close} disabled={changing.busy}>
          Cancel
        </button>
        <button type="submit" className={`${buttons.primary} ${form.grow}`} disabled={changing.busy}>
          {changing.busy ? 'Changing...' : 'Change password'}
        </button>
      </div>
    </form>
  );
}
