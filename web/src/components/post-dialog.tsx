import { useRef } from 'react';
import buttons from '@/components/button.module.css';
import { CloseIcon } from '@/components/icons';
import { useModalDialog } from '@/components/modal';
import { PostCard } from '@/components/post-card';
import type { Post } from '@/lib/api/posts';
import styles from './post-dialog.module.css';

interface PostDialogProps {
  post: Post;
  onClose: () => void;
  onChange: (post: Post) => void;
  onDelete: (postId: number) => void;
}

/** One post from a grid, opened as a modal dialog (Escape or the close button closes it; focus returns to the tile). */
export function PostDialog({ post, onClose, onChange, onDelete }: PostDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  useModalDialog(ref);
  return (
    <dialog
      ref={ref}
      className={styles.dialog}
      aria-label="Post"
      onClose={onClose}
      onClick={(e) => e.target === ref.current && ref.current.close()}
    >
      <div className={styles.inner}>
        <button type="button" className={`${buttons.round} ${styles.close}`} onClick={() => ref.current?.close()} aria-label="Close">
          <CloseIcon />
        </button>
        <PostCard
          post={post}
          onChange={onChange}
          onDelete={(id) => {
            onDelete(id);
            ref.current?.close();
          }}
          eager
        />
      </div>
    </dialog>
  );
}
