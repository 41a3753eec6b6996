import { useId, useState } from 'react';
import form from '@/components/form.module.css';
import switches from '@/components/switch.module.css';
import { setPrivacy } from '@/lib/api/people';
import { useSubmit } from '@/lib/use-submit';
import styles from './account-page.module.css';

/**
 * "Private account" on the own profile (docs/api.md, "Private accounts"): new follows become
 * requests answered on the Notifications screen, and named posts are for followers only.
 * Turning it off approves the requests still waiting, as the hint says.
 */
export function PrivateAccount({ isPrivate, onChange }: { isPrivate: boolean; onChange: (isPrivate: boolean) => void }) {
  const ids = { toggle: useId(), hint: useId() };
  const submit = useSubmit('Your privacy could not be changed. Please try again.');
  const [approved, setApproved] = useState<number | null>(null);

  async function change(next: boolean) {
    if (submit.busy) return;
    setApproved(null);
    await submit.run(async () => {
      const res = await setPrivacy(next);
      onChange(res.isPrivate);
      if (!res.isPrivate && res.approved > 0) setApproved(res.approved);
    });
  }

  return (
    <div className={styles.privacy}>
      <div className={switches.toggleRow}>
        <div>
          <label htmlFor={ids.toggle} className={styles.toggleLabel}>
            Private account
          </label>
          <p id={ids.hint} className={styles.hint}>
            {isPrivate
              ? 'Only your followers see your posts. You approve new followers from your notifications; turning this off approves the requests still waiting.'
              : 'Anyone can see your posts and follow you. Anonymous posts stay anonymous either way.'}
          </p>
        </div>
        <input
          id={ids.toggle}
          type="checkbox"
          role="switch"
          className={switches.switch}
          checked={isPrivate}
          onChange={(e) => void change(e.target.checked)}
          aria-describedby={ids.hint}
          aria-disabled={submit.busy || undefined}
        />
      </div>
      {approved !== null && (
        <p className={styles.downloadDone} role="status">
          {approved === 1 ? '1 waiting request was approved.' : `${approved} waiting requests were approved.`}
        </p>
      )}
      {submit.error && (
        <p role="alert" className={form.error}>
          {submit.error}
        </p>
      )}
    </div>
  );
}
