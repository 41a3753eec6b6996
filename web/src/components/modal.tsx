import { useEffect, useId, useRef } from 'react';
import buttons from '@/components/button.module.css';
import { CloseIcon } from '@/components/icons';
import styles from './modal.module.css';

interface ModalProps {
  title: string;
  onClose: () => void;
  /** The content; as a function it gets `close`, which closes the dialog so focus goes back to the opener. */
  children: React.ReactNode | ((close: () => void) => React.ReactNode);
}

/**
 * Opens the dialog with showModal() when it mounts: the rest of the page turns inert, so
 * focus stays inside (on the element marked data-autofocus, else the first control), and
 * Escape closes it. When it goes, focus goes back to the control that opened it (the
 * browser does that on close() too, but not when the opener itself went meanwhile, say a
 * report the operator just removed: then to the main region).
 */
export function useModalDialog(ref: React.RefObject<HTMLDialogElement | null>): void {
  const opener = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) {
      // Not again in React's development double run, when focus is already inside.
      opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      dialog.showModal();
      // showModal() focuses the first control; React's autoFocus ran before the dialog was open and did nothing,
      // so a field meant to be typed in at once says so with data-autofocus.
      dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    }
    return () => {
      const back = opener.current?.isConnected ? opener.current : document.getElementById('main');
      // While the dialog is still open (that double run) everything behind it is inert and this does nothing.
      back?.focus({ preventScroll: !opener.current?.isConnected });
    };
  }, [ref]);
}

/**
 * A small modal dialog with a title and a close button (useModalDialog: focus stays inside
 * and comes back to the opener); Escape and a click on the backdrop close it.
 */
export function Modal({ title, onClose, children }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useModalDialog(ref);
  const close = () => ref.current?.close();
  return (
    <dialog
      ref={ref}
      className={styles.dialog}
      aria-labelledby={titleId}
      onClose={onClose}
      onClick={(e) => e.target === ref.current && ref.current.close()}
    >
      <div className={styles.panel}>
        <header className={styles.header}>
          <h2 id={titleId} className={styles.title}>
            {title}
          </h2>
          <button type="button" className={`${buttons.round} ${styles.close}`} onClick={close} aria-label="Close">
            <CloseIcon size={20} />
          </button>
        </header>
        {typeof children === 'function' ? children(close) : children}
      </div>
    </dialog>
  );
}

/**
 * The end of a dialog's form: its error (an alert) and Cancel / submit. While `busy`, both are
 * disabled and the submit button says `busyLabel`.
 */
export function ModalFormFooter({
  error,
  busy,
  onCancel,
  submitLabel,
  busyLabel,
  submitDisabled = false,
}: {
  error: string | null;
  busy: boolean;
  onCancel: () => void;
  submitLabel: string;
  busyLabel: string;
  submitDisabled?: boolean;
}) {
  return (
    <>
      {error && (
        <p className={styles.error} role="alert">
          {error}
        </p>
      )}
      <div className={styles.buttons}>
        <button type="button" className={buttons.secondary} onClick={onCancel} disabled={busy}>
          Cancel
        </button>
        <button type="submit" className={buttons.primary} disabled={submitDisabled || busy}>
          {busy ? busyLabel : submitLabel}
        </button>
      </div>
    </>
  );
}
