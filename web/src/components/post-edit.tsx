import { useEffect, useId, useState } from 'react';
import buttons from '@/components/button.module.css';
import { Modal } from '@/components/modal';
import modal from '@/components/modal.module.css';
import * as api from '@/lib/api';
import type { PostEdit, PostVersion } from '@/lib/api';
import { getConfig } from '@/lib/config';
import { formatDate, formatTime } from '@/lib/format';
import styles from './post-edit.module.css';

/** "Nov 27, 2026, 5:20 PM" in the browser's language. */
const dateAndTime = (iso: string) => `${formatDate(iso)}, ${formatTime(new Date(iso))}`;

/** What a card shows after its date: "Edited", with the time today, the date before. */
export function editedLabel(iso: string): string {
  const d = new Date(iso);
  return d.toDateString() === new Date().toDateString() ? `Edited ${formatTime(d)}` : `Edited ${formatDate(iso)}`;
}

interface EditPostProps {
  post: { postid: number; caption: string; altText: string };
  onSaved: (edit: PostEdit) => void;
  onClose: () => void;
}

/**
 * The author changes the caption and the photo's description (docs/api.md, "Editing a post"):
 * the same limits as when posting; the photo, and whether the post is anonymous, stay.
 */
export function EditPostDialog({ post, onSaved, onClose }: EditPostProps) {
  const [caption, setCaption] = useState(post.caption);
  const [altText, setAltText] = useState(post.altText);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const ids = { caption: useId(), counter: useId(), alt: useId(), hint: useId() };
  const { captionMaxLength, altTextMaxLength } = getConfig().limits;
  return (
    <Modal title="Edit post" onClose={onClose}>
      {(close) => (
        <form
          className={modal.form}
          onSubmit={async (e) => {
            e.preventDefault();
            if (busy) return;
            if (!caption.trim()) {
              setError('The caption cannot be blank.');
              return;
            }
            setBusy(true);
            setError(null);
            try {
              onSaved(await api.editPost(post.postid, { caption, altText }));
              close();
            } catch (err) {
              setError(err instanceof api.ApiError ? err.message : 'The post could not be saved. Please try again.');
              setBusy(false);
            }
          }}
        >
          <label htmlFor={ids.caption} className={modal.label}>
            Caption
            <span id={ids.counter} className={styles.counter}>
              {caption.length}/{captionMaxLength}
            </span>
          </label>
          <textarea
            id={ids.caption}
            className={modal.textarea}
            value={caption}
            maxLength={captionMaxLength}
            onChange={(e) => setCaption(e.target.value)}
            aria-describedby={ids.counter}
            data-autofocus
          />
          <label htmlFor={ids.alt} className={modal.label}>
            Photo description
          </label>
          <textarea
            id={ids.alt}
            className={modal.textarea}
            value={altText}
            maxLength={altTextMaxLength}
            onChange={(e) => setAltText(e.target.value)}
            aria-describedby={ids.hint}
          />
          <p id={ids.hint} className={modal.hint}>
            Read aloud to people who cannot see the photo. The photo itself stays as it is, and everyone who can see the post can
            see its earlier versions.
          </p>
          {error && (
            <p className={modal.error} role="alert">
              {error}
            </p>
          )}
          <div className={modal.buttons}>
            <button type="button" className={buttons.secondary} onClick={close} disabled={busy}>
              Cancel
            </button>
            <button type="submit" className={buttons.primary} disabled={busy}>
              {busy ? 'Saving...' : 'Save'}
            </button>
          </div>
        </form>
      )}
    </Modal>
  );
}

/** Every version of a post's text, newest first (GET /api/post-versions). Names nobody: the post's header does. */
export function PostHistoryDialog({ postId, onClose }: { postId: number; onClose: () => void }) {
  const [versions, setVersions] = useState<PostVersion[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    api.getPostVersions(postId).then(
      (v) => live && setVersions(v),
      (err: unknown) => live && setError(err instanceof api.ApiError ? err.message : 'The earlier versions could not be loaded.'),
    );
    return () => {
      live = false;
    };
  }, [postId]);
  return (
    <Modal title="Edit history" onClose={onClose}>
      {error && (
        <p className={modal.error} role="alert">
          {error}
        </p>
      )}
      {!versions && !error && <p className={modal.hint} role="status">Loading...</p>}
      {versions && (
        <ol className={styles.versions} aria-label="Versions, newest first">
          {versions.map((v, i) => (
            <li key={v.created_at + i} className={`${styles.version} ${v.current ? styles.current : ''}`}>
              <p className={styles.meta}>
                <strong>{i === versions.length - 1 ? 'Posted' : 'Edited'}</strong>{' '}
                <time dateTime={v.created_at}>{dateAndTime(v.created_at)}</time>
                {v.current && ' · Current version'}
              </p>
              <p className={styles.caption}>{v.caption}</p>
              {v.altText && (
                <p className={styles.alt}>
                  <strong>Photo description:</strong> {v.altText}
                </p>
              )}
            </li>
          ))}
        </ol>
      )}
    </Modal>
  );
}
