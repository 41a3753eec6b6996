import { useId, useState, type FormEvent } from 'react';
import buttons from '@/components/button.module.css';
import form from '@/components/form.module.css';
import { ErrorMessage, Loading, SaveStatus, type SaveState } from '@/components/status';
import { getRemoteMedia, setRemoteMedia, type RemoteMediaUse } from '@/lib/api/remote-media';
import { formatCount, readableBytes } from '@/lib/format';
import { useLoaded } from '@/lib/use-loaded';
import { useSubmit } from '@/lib/use-submit';
import { Figure } from './figure';
import admin from './admin-page.module.css';
import styles from './federation-settings.module.css';

const GB = 1024 ** 3;
/** The cap as the field shows it, in GB to three significant digits (a cap under 0.01 GB is not shown as 0, no cap). */
const capField = (bytes: number) => String(Number((bytes / GB).toPrecision(3)));

/**
 * Remote media on the operator settings page (issue 50, item 5; server/src/federation/remote-media.ts):
 * what other servers' photos take here, and the cap and retention that bound it. Loads and saves
 * on its own, under Federation.
 */
export function RemoteMedia() {
  const { data: use, setData: setUse, failed, reload: load } = useLoaded(getRemoteMedia);
  return (
    <>
      <h3 className={styles.subheading}>Photos from other servers</h3>
      {!use ? (
        failed ? (
          <ErrorMessage text="We couldn't load what other servers' photos take here." onRetry={() => void load()} />
        ) : (
          <Loading />
        )
      ) : (
        <RemoteMediaBody use={use} onSaved={setUse} />
      )}
    </>
  );
}

function RemoteMediaBody({ use, onSaved }: { use: RemoteMediaUse; onSaved: (use: RemoteMediaUse) => void }) {
  const id = useId();
  const [cap, setCap] = useState(capField(use.capBytes));
  const [days, setDays] = useState(String(use.retentionDays));
  const [status, setStatus] = useState<SaveState | null>(null);
  const saving = useSubmit((err) => setStatus({ error: true, text: err instanceof Error ? err.message : 'That did not work. Please try again.' }));

  async function save(e: FormEvent) {
    e.preventDefault();
    const capBytes = Math.round(Number(cap) * GB);
    const retentionDays = Number(days);
    if (!(capBytes >= 0) || !Number.isInteger(retentionDays) || retentionDays < 0 || retentionDays > 3650) {
      setStatus({ error: true, text: 'The cap is a number of GB (0 for none), the days a whole number from 0 to 3650.' });
      return;
    }
    setStatus(null);
    await saving.run(async () => {
      const saved = await setRemoteMedia({ capBytes, retentionDays });
      onSaved(saved);
      setCap(capField(saved.capBytes));
      setDays(String(saved.retentionDays));
      setStatus({ error: false, text: saved.dropped > use.dropped ? `Saved. ${formatCount(saved.dropped - use.dropped)} photos were past it and dropped.` : 'Saved.' });
    });
  }

  return (
    <>
      <dl className={`${admin.figures} ${styles.figures}`} aria-label="Photos from other servers">
        <Figure label="Stored" value={readableBytes(use.storedBytes)} />
        <Figure label="Photos kept" value={formatCount(use.stored)} />
        <Figure label="Dropped" value={formatCount(use.dropped)} />
        <Figure label="Cap" value={use.capBytes === 0 ? 'None' : readableBytes(use.capBytes)} />
      </dl>
      <form className={form.card} onSubmit={(e) => void save(e)}>
        <label className={`${form.label} ${form.field}`} htmlFor={`${id}-cap`}>
          Cap (GB)
        </label>
        <input
          id={`${id}-cap`}
          className={form.input}
          inputMode="decimal"
          value={cap}
          aria-describedby={`${id}-cap-hint`}
          onChange={(e) => setCap(e.target.value)}
        />
        <p id={`${id}-cap-hint`} className={form.hint}>
          Past it, the oldest photos from other servers are dropped first. Photos posted here never count. 0: no cap.
        </p>
        <label className={`${form.label} ${form.field}`} htmlFor={`${id}-days`}>
          Keep for (days)
        </label>
        <input
          id={`${id}-days`}
          className={form.input}
          inputMode="numeric"
          value={days}
          aria-describedby={`${id}-days-hint`}
          onChange={(e) => setDays(e.target.value)}
        />
        <p id={`${id}-days-hint`} className={form.hint}>
          After this, a photo from another server is dropped; its post stays, and the photo is fetched again when someone opens
          it. 0: kept.
        </p>
        <div className={form.actions}>
          <button type="submit" className={buttons.primary} disabled={saving.busy}>
            Save
          </button>
        </div>
        <SaveStatus status={status} />
      </form>
    </>
  );
}
