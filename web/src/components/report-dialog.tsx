import { useId, useState } from 'react';
import buttons from '@/components/button.module.css';
import { Modal, ModalFormFooter } from '@/components/modal';
import { report, type ReportReason } from '@/lib/api/moderation';
import { useSubmit } from '@/lib/use-submit';
import styles from './modal.module.css';

const REASONS: ReadonlyArray<{ value: ReportReason; label: string }> = [
  { value: 'spam', label: 'Spam' },
  { value: 'nudity', label: 'Nudity' },
  { value: 'harassment', label: 'Harassment' },
  { value: 'other', label: 'Something else' },
];

/** Most characters of a report's note (server/src/kernel/limits.ts, NOTE_MAX_LENGTH). */
const NOTE_MAX = 500;

interface ReportDialogProps {
  kind: 'post' | 'comment';
  id: number;
  onClose: () => void;
}

/** "Report post" / "Report comment": a reason and an optional note; the item stays until an operator acts. */
export function ReportDialog({ kind, id, onClose }: ReportDialogProps) {
  const [reason, setReason] = useState<ReportReason | null>(null);
  const [note, setNote] = useState('');
  const submit = useSubmit('The report could not be sent. Please try again.');
  const [thanks, setThanks] = useState<string | null>(null);
  const noteId = useId();

  async function send(e: React.FormEvent) {
    e.preventDefault();
    if (!reason) return;
    await submit.run(async () => setThanks((await report(kind, id, reason, note.trim())).message));
  }

  return (
    <Modal title={kind === 'post' ? 'Report post' : 'Report comment'} onClose={onClose}>
      {(close) =>
        thanks ? (
        <div className={styles.form}>
          <p className={styles.done} role="status">
            {thanks}
          </p>
          <p className={styles.hint}>Until then it stays visible. You can also block the person from their profile.</p>
          <div className={styles.buttons}>
            <button type="button" className={buttons.primary} onClick={close} autoFocus>
              Done
            </button>
          </div>
        </div>
      ) : (
        <form className={styles.form} onSubmit={send}>
          <fieldset className={styles.choices}>
            <legend>Why are you reporting this {kind}?</legend>
            {REASONS.map((r) => (
              <label key={r.value} className={styles.choice}>
                <input type="radio" name="reason" value={r.value} checked={reason === r.value} onChange={() => setReason(r.value)} />
                {r.label}
              </label>
            ))}
          </fieldset>
          <label htmlFor={noteId} className={styles.label}>
            Anything an operator should know? (optional)
          </label>
          <textarea
            id={noteId}
            className={styles.textarea}
            value={note}
            maxLength={NOTE_MAX}
            onChange={(e) => setNote(e.target.value)}
          />
          <p className={styles.hint}>Only the operators of this server see your report. The author is not told who reported.</p>
          <ModalFormFooter
            error={submit.error}
            busy={submit.busy}
            onCancel={close}
            submitLabel="Send report"
            busyLabel="Sending..."
            submitDisabled={!reason}
          />
        </form>
        )
      }
    </Modal>
  );
}
