import { useId, useState } from 'react';
import { Modal, ModalFormFooter } from '@/components/modal';
import modal from '@/components/modal.module.css';
import { useSubmit } from '@/lib/use-submit';

/** Most characters of an operator's reason (server/src/kernel/limits.ts, NOTE_MAX_LENGTH). */
const REASON_MAX = 500;

interface ReasonDialogProps {
  title: string;
  /** What happens, in a sentence, above the reason. */
  explanation: string;
  confirmLabel: string;
  /** The field's label, when it is not a reason the author sees (a report forwarded to another server). */
  label?: string;
  /** What the field starts with. */
  initial?: string;
  onConfirm: (reason: string) => Promise<void>;
  onClose: () => void;
}

/** Asks an operator for the reason of a removal or suspension (the person concerned sees it), then acts. */
export function ReasonDialog({ title, explanation, confirmLabel, label = 'Reason (the author sees it)', initial = '', onConfirm, onClose }: ReasonDialogProps) {
  const [reason, setReason] = useState(initial);
  const submit = useSubmit((err) => submit.setError(err instanceof Error ? err.message : 'That did not work. Please try again.'));
  const id = useId();

  return (
    <Modal title={title} onClose={onClose}>
      {(close) => (
        <form
          className={modal.form}
          onSubmit={async (e) => {
            e.preventDefault();
            if (!reason.trim()) return;
            await submit.run(async () => {
              await onConfirm(reason.trim());
              close();
            });
          }}
        >
          <p className={modal.hint}>{explanation}</p>
          <label htmlFor={id} className={modal.label}>
            {label}
          </label>
          <textarea
            id={id}
            className={modal.textarea}
            value={reason}
            maxLength={REASON_MAX}
            required
            onChange={(e) => setReason(e.target.value)}
            data-autofocus
          />
          <ModalFormFooter
            error={submit.error}
            busy={submit.busy}
            onCancel={close}
            submitLabel={confirmLabel}
            busyLabel="Working..."
            submitDisabled={!reason.trim()}
          />
        </form>
      )}
    </Modal>
  );
}
