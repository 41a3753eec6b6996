import { useId } from 'react';
import { getPostPhoto, type Post, type PostPhoto } from '@/lib/api/posts';
import { useSubmit } from '@/lib/use-submit';
import styles from './sensitive-cover.module.css';

interface SensitiveCoverProps {
  post: Post;
  /** The photo itself, asked for by "Show photo": the card shows it in place of the blurred one. */
  onRevealed: (photo: PostPhoto) => void;
}

/**
 * Over a sensitive post's blurred image (docs/api.md, "Content warnings"). The image under it is
 * the server's blurred one, not the photo blurred here, so a slow connection or a page without
 * styles shows nothing of the photo; the photo's own URL arrives only when "Show photo" asks for it.
 * The button is a plain button (Tab, Enter, Space); its description is the warning.
 */
export function SensitiveCover({ post, onRevealed }: SensitiveCoverProps) {
  const ids = { title: useId(), warning: useId() };
  const submit = useSubmit('The photo could not be loaded. Please try again.');
  const warning = post.sensitive?.warning ?? '';
  return (
    <div className={styles.cover}>
      <p id={ids.title} className={styles.title}>
        Sensitive photo
      </p>
      {warning && (
        <p id={ids.warning} className={styles.warning}>
          {warning}
        </p>
      )}
      <button
        type="button"
        className={styles.show}
        aria-describedby={warning ? `${ids.title} ${ids.warning}` : ids.title}
        aria-disabled={submit.busy || undefined}
        onClick={() => {
          if (submit.busy) return;
          void submit.run(async () => onRevealed(await getPostPhoto(post.postid)));
        }}
      >
        Show photo
      </button>
      {submit.error && (
        <p role="alert" className={styles.error}>
          {submit.error}
        </p>
      )}
    </div>
  );
}

/** Under a sensitive photo shown as it is, so its author (and whoever chose to see it) knows it is marked. */
export function SensitiveNote({ warning }: { warning: string }) {
  return <p className={styles.note}>Marked sensitive{warning ? `: ${warning}` : ''}</p>;
}
