import { BeerIcon } from '@/components/icons';
import styles from './status.module.css';

export function Loading({ text = 'Loading...' }: { text?: string }) {
  return (
    <div className={styles.loading} role="status" aria-live="polite">
      <span className={styles.bubbles} aria-hidden="true">
        <span />
        <span />
        <span />
      </span>
      <span>{text}</span>
    </div>
  );
}

interface EmptyStateProps {
  title: string;
  text?: string;
  /** A decorative icon (defaults to the beer mark). */
  icon?: React.ReactNode;
  children?: React.ReactNode;
}

export function EmptyState({ title, text, icon, children }: EmptyStateProps) {
  return (
    <div className={styles.empty}>
      <span className={styles.icon} aria-hidden="true">
        {icon ?? <BeerIcon size={30} />}
      </span>
      <p className={styles.title}>{title}</p>
      {text && <p className={styles.text}>{text}</p>}
      {children}
    </div>
  );
}

export function ErrorMessage({ text, onRetry }: { text: string; onRetry?: () => void }) {
  return (
    <div className={styles.error} role="alert">
      <p>{text}</p>
      {onRetry && (
        <button type="button" className={styles.retry} onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** What a form's last save did: a failure, or what was saved. */
export type SaveState = { error: boolean; text: string };

/** What a form's last save did, under the form: "Saved…" as a status, a failure as an alert. */
export function SaveStatus({ status }: { status: SaveState | null }) {
  if (!status) return null;
  return (
    <p className={status.error ? styles.saveFailed : styles.saved} role={status.error ? 'alert' : 'status'}>
      {status.text}
    </p>
  );
}
