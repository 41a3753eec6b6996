import { useEffect, useId, useState } from 'react';
import form from '@/components/form.module.css';
import switches from '@/components/switch.module.css';
import { getSensitivePhotos, setSensitivePhotos } from '@/lib/api/posts';
import { useSubmit } from '@/lib/use-submit';
import styles from './account-page.module.css';

/**
 * "Always show sensitive photos" (docs/api.md, "Content warnings"): kept by the server for the
 * person, so the feeds send them the photos themselves instead of the blurred images.
 */
export function SensitivePhotos() {
  const ids = { toggle: useId(), hint: useId() };
  const [alwaysShow, setAlwaysShow] = useState<boolean | null>(null);
  const submit = useSubmit('Your setting could not be changed. Please try again.');

  useEffect(() => {
    getSensitivePhotos()
      .then((r) => setAlwaysShow(r.alwaysShow))
      .catch((err: unknown) => console.error('Failed to load the sensitive photos setting', err));
  }, []);

  async function change(next: boolean) {
    if (submit.busy) return;
    await submit.run(async () => setAlwaysShow((await setSensitivePhotos(next)).alwaysShow));
  }

  return (
    <div className={styles.privacy}>
      <div className={switches.toggleRow}>
        <div>
          <label htmlFor={ids.toggle} className={styles.toggleLabel}>
            Always show sensitive photos
          </label>
          <p id={ids.hint} className={styles.hint}>
            {alwaysShow
              ? 'Photos marked sensitive are shown to you as they are.'
              : 'Photos marked sensitive are blurred until you choose "Show photo".'}
          </p>
        </div>
        <input
          id={ids.toggle}
          type="checkbox"
          role="switch"
          className={switches.switch}
          checked={alwaysShow === true}
          onChange={(e) => void change(e.target.checked)}
          aria-describedby={ids.hint}
          aria-disabled={submit.busy || alwaysShow === null || undefined}
        />
      </div>
      {submit.error && (
        <p role="alert" className={form.error}>
          {submit.error}
        </p>
      )}
    </div>
  );
}
