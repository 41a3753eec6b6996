import { useEffect, useId, useRef } from 'react';
import { CloseIcon } from '@/components/icons';
import styles from './modal.module.css';

interface ModalProps {
  title: string;
  onClose: () => void;
  /** The content; as a function it gets `close`, which closes the dialog so focus goes back to the opener. */
  children: React.ReactNode | ((close: () => void) => React.ReactNode);
}

/**
 * A small modal dialog with a title and a close button. The native <dialog> opened
 * with showModal() keeps focus inside and gives it back to the opener on close;
 * Escape and a click on the backdrop close it.
 */
export function Modal({ title, onClose, children }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
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
          <button type="button" className={styles.close} onClick={close} aria-label="Close">
            <CloseIcon size={20} />
          </button>
        </header>
        {typeof children === 'function' ? children(close) : children}
      </div>
    </dialog>
  );
}
