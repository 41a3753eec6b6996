import { useEffect, useState } from 'react';
import { getNotices, type ModerationNotice } from '@/lib/api/moderation';
import { formatDate } from '@/lib/format';
import styles from './account-page.module.css';

/** What operators removed of yours or marked sensitive, with the reason they gave. Shown only when there is something. */
export function ModerationNotices() {
  const [notices, setNotices] = useState<ModerationNotice[]>([]);
  useEffect(() => {
    getNotices()
      .then((r) => setNotices(r.notices))
      .catch((err: unknown) => console.error('Failed to load notices', err));
  }, []);
  if (notices.length === 0) return null;
  return (
    <section className={styles.notices} aria-labelledby="notices-heading">
      <h2 id="notices-heading" className={styles.noticesTitle}>
        {notices.every((n) => n.action !== 'mark_sensitive') ? 'Removed by an operator' : 'From an operator'}
      </h2>
      <ul className={styles.panelList}>
        {notices.map((n, i) => (
          <li key={`${n.created_at}-${i}`} className={styles.notice}>
            <p>
              {n.action === 'mark_sensitive'
                ? `Your post “${n.excerpt}” was marked sensitive on ${formatDate(n.created_at)}: others see its photo blurred until they choose to see it.`
                : `Your ${n.action === 'remove_post' ? 'post' : 'comment'} “${n.excerpt}” was removed on ${formatDate(n.created_at)}.`}
            </p>
            <p className={styles.panelMeta}>Reason: {n.reason}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
