import { useEffect, useState } from 'react';
import form from '@/components/form.module.css';
import { SwitchRow } from '@/components/switch-row';
import { getSensitivePhotos, setSensitivePhotos } from '@/lib/api/posts';
import { useSubmit } from '@/lib/use-submit';
import styles from './account-page.module.css';

/**
 * "Always show sensitive photos" (docs/api.md, "Content warnings"): kept by the server for the
 * person, so the feeds send them the photos themselves instead of the blurred images.
 */
export function SensitivePhotos() {
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
      <SwitchRow
        label="Always show sensitive photos"
        hint={alwaysShow ? 'Photos marked sensitive are shown to you as they are.' : 'Photos marked sensitive are blurred until you choose "Show photo".'}
        checked={alwaysShow === true}
        onChange={(on) => void change(on)}
        busy={submit.busy || alwaysShow === null}
        labelClassName={styles.toggleLabel}
        hintClassName={styles.hint}
      />
      {submit.error && (
        <p role="alert" className={form.error}>
          {submit.error}
        </p>
      )}
    </div>
  );
}
