import form from '@/components/form.module.css';
import { SwitchRow } from '@/components/switch-row';
import { setAuthorizedFetch, type FederationStatus } from '@/lib/api/registration';
import { useSubmit } from '@/lib/use-submit';
import styles from './federation-settings.module.css';

/**
 * Authorized fetch under Federation on Server settings (docs/api.md, "Federation on the operator
 * page"; server/src/federation/fetch-access.ts): its own switch, saved at once, as the one above it.
 */
export function AuthorizedFetch({ status, onStatus }: { status: FederationStatus; onStatus: (next: FederationStatus) => void }) {
  const saving = useSubmit('Authorized fetch could not be switched. Please try again.');
  const hint = status.authorizedFetch
    ? "Posts and comments here are given only to servers that sign their requests, and never to suspended ones. A few servers that don't sign can no longer show them."
    : 'Any server may read the public posts and comments here. Turn it on to serve them only to servers that sign their requests, as Mastodon\'s secure mode does.';
  return (
    <div>
      <SwitchRow
        label="Authorized fetch"
        hint={hint}
        checked={status.authorizedFetch}
        onChange={(next) => void saving.run(async () => onStatus(await setAuthorizedFetch(next)))}
        busy={saving.busy}
        labelClassName={styles.label}
        hintClassName={styles.hint}
      />
      {saving.error && (
        <p role="alert" className={form.error}>
          {saving.error}
        </p>
      )}
    </div>
  );
}
