import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { Avatar } from '@/components/avatar';
import buttons from '@/components/button.module.css';
import { type BlockedPerson, getBlocks, liftBlock } from '@/lib/api/moderation';
import { formatDate } from '@/lib/format';
import { errorText } from '@/lib/use-submit';
import styles from './account-page.module.css';

/** "Blocked people" on the own profile, each with Unblock. Blocks made on an anonymous post stay unnamed. */
export function BlockedPeople() {
  const [blocks, setBlocks] = useState<BlockedPerson[] | null>(null);
  const [busy, setBusy] = useState<number | null>(null);

  useEffect(() => {
    getBlocks()
      .then((r) => setBlocks(r.blocks))
      .catch((err: unknown) => console.error('Failed to load blocks', err));
  }, []);

  async function lift(block: BlockedPerson) {
    setBusy(block.blockId);
    try {
      await liftBlock(block.blockId);
      setBlocks((list) => list?.filter((b) => b.blockId !== block.blockId) ?? null);
    } catch (err) {
      window.alert(errorText(err, 'Unblocking failed. Please try again.'));
    } finally {
      setBusy(null);
    }
  }

  if (!blocks) return null;
  return (
    <details className={styles.panel}>
      <summary>Blocked people ({blocks.length})</summary>
      {blocks.length === 0 ? (
        <p className={styles.panelEmpty}>You have not blocked anyone. Block someone from their profile or from a post’s ⋯ menu.</p>
      ) : (
        <ul className={styles.panelList}>
          {blocks.map((b) => (
            <li key={b.blockId} className={styles.panelRow}>
              <Avatar name={b.username} pictureUrl={b.profilePictureUrl} size={36} decorative />
              <div className={styles.panelText}>
                {b.username ? (
                  <Link to={`/app/profile/${encodeURIComponent(b.username)}`}>{b.username}</Link>
                ) : (
                  <span>The author of an anonymous post</span>
                )}
                <span className={styles.panelMeta}>Blocked {formatDate(b.created_at)}</span>
              </div>
              <button
                type="button"
                className={`${buttons.secondary} ${buttons.small}`}
                onClick={() => lift(b)}
                disabled={busy === b.blockId}
                aria-label={b.username ? `Unblock ${b.username}` : 'Unblock the author of an anonymous post'}
              >
                Unblock
              </button>
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}
