import { useId, useState } from 'react';
import { Modal, ModalFormFooter } from '@/components/modal';
import modal from '@/components/modal.module.css';
import { type PostEdit, updateAltText } from '@/lib/api/posts';
import { getConfig } from '@/lib/config';
import { useSubmit } from '@/lib/use-submit';

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
  const submit = useSubmit('The description could not be saved. Please try again.');
  const id = useId();
  const max = getConfig().limits.altTextMaxLength;
  return (
    <Modal title={of ? `Describe photo ${index + 1} of ${of}` : 'Describe the photo'} onClose={onClose}>
      {(close) => (
        <form
          className={modal.form}
          onSubmit={async (e) => {
            e.preventDefault();
            await submit.run(async () => {
              onSaved(await updateAltText(postId, text.trim(), index));
              close();
            });
          }}
        >
          <label htmlFor={id} className={modal.label}>
            Alt text
          </label>
          <textarea id={id} className={modal.textarea} value={text} maxLength={max} onChange={(e) => setText(e.target.value)} data-autofocus />
          <p className={modal.hint}>
            Read aloud to people who cannot see the photo. Say what is in it: the beer, the place, the mood. {text.length}/{max}
          </p>
          <ModalFormFooter error={submit.error} busy={submit.busy} onCancel={close} submitLabel="Save" busyLabel="Saving..." />
        </form>
      )}
    </Modal>
  );
}
