import { useId, useState } from 'react';
import { Modal, ModalFormFooter } from '@/components/modal';
import modal from '@/components/modal.module.css';
import { ApiError } from '@/lib/api/client';
import { type PostEdit, updateAltText } from '@/lib/api/posts';
import { getConfig } from '@/lib/config';

interface EditAltTextProps {
  postId: number;
  /** The photo's place in the post (0 the first). */
  index?: number;
  /** An album's photo count: the title then says which photo it is. */
  of?: number;
  current: string;
  onSaved: (edit: PostEdit) => void;
  onClose: () => void;
}

/** The author describes their photo afterwards (an empty text takes the description away). */
export function EditAltTextDialog({ postId, index = 0, of, current, onSaved, onClose }: EditAltTextProps) {
  const [text, setText] = useState(current);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const max = getConfig().limits.altTextMaxLength;
  return (
    <Modal title={of ? `Describe photo ${index + 1} of ${of}` : 'Describe the photo'} onClose={onClose}>
      {(close) => (
        <form
          className={modal.form}
          onSubmit={async (e) => {
            e.preventDefault();
            if (busy) return;
            setBusy(true);
            setError(null);
            try {
              onSaved(await updateAltText(postId, text.trim(), index));
              close();
            } catch (err) {
              setError(err instanceof ApiError ? err.message : 'The description could not be saved. Please try again.');
              setBusy(false);
            }
          }}
        >
          <label htmlFor={id} className={modal.label}>
            Alt text
          </label>
          <textarea id={id} className={modal.textarea} value={text} maxLength={max} onChange={(e) => setText(e.target.value)} data-autofocus />
          <p className={modal.hint}>
            Read aloud to people who cannot see the photo. Say what is in it: the beer, the place, the mood. {text.length}/{max}
          </p>
          <ModalFormFooter error={error} busy={busy} onCancel={close} submitLabel="Save" busyLabel="Saving..." />
        </form>
      )}
    </Modal>
  );
}
