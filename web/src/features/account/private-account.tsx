import { useState } from 'react';
import form from '@/components/form.module.css';
import { SwitchRow } from '@/components/switch-row';
import { setPrivacy } from '@/lib/api/people';
import { useSubmit } from '@/lib/use-submit';
import styles from './account-page.module.css';

/**
 * "Private account" on the own profile (docs/api.md, "Private accounts"): new follows become
 * requests answered on the Notifications screen, and named posts are for followers only.
 * Turning it off approves the requests still waiting, as the hint says.
 */
export function PrivateAccount({ isPrivate, onChange }: { isPrivate: boolean; onChange: (isPrivate: boolean) => void }) {
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
      <SwitchRow
        label="Private account"
        hint={
          isPrivate
            ? 'Only your followers see your posts. You approve new followers from your notifications; turning this off approves the requests still waiting.'
            : 'Anyone can see your posts and follow you. Anonymous posts stay anonymous either way.'
        }
        checked={isPrivate}
        onChange={(on) => void change(on)}
        busy={submit.busy}
        labelClassName={styles.toggleLabel}
        hintClassName={styles.hint}
      />
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
