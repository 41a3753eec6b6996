import { useEffect, useState } from 'react';
import buttons from '@/components/button.module.css';
import { getServerMutes, type ServerMute, unmuteServer } from '@/lib/api/server-mutes';
import { formatDate } from '@/lib/format';
import { errorText } from '@/lib/use-submit';
import styles from './account-page.module.css';

/** "Muted servers" on the own profile, each with Unmute; a server is muted from one of its people's profiles. */
export function MutedServers() {
  const [mutes, setMutes] = useState<ServerMute[] | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  useEffect(() => {
    getServerMutes()
      .then((r) => setMutes(r.mutes))
      .catch((err: unknown) => console.error('Failed to load muted servers', err));
  }, []);

  async function unmute(host: string) {
    setBusy(host);
    try {
      await unmuteServer(host);
      setMutes((list) => list?.filter((m) => m.host !== host) ?? null);
    } catch (err) {
      window.alert(errorText(err, 'Unmuting failed. Please try again.'));
    } finally {
      setBusy(null);
    }
  }

  if (!mutes) return null;
  return (
    <details className={styles.panel}>
      <summary>Muted servers ({mutes.length})</summary>
      {mutes.length === 0 ? (
        <p className={styles.panelEmpty}>
          You have not muted any server. Mute one from the profile of someone on it: their posts, comments and notifications leave your views.
        </p>
      ) : (
        <ul className={styles.panelList}>
          {mutes.map((m) => (
            <li key={m.host} className={styles.panelRow}>
              <div className={styles.panelText}>
                <span>{m.host}</span>
                <span className={styles.panelMeta}>Muted {formatDate(m.created_at)}</span>
              </div>
              <button
                type="button"
                className={`${buttons.secondary} ${buttons.small}`}
                onClick={() => unmute(m.host)}
                disabled={busy === m.host}
                aria-label={`Unmute ${m.host}`}
              >
                Unmute
              </button>
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}
