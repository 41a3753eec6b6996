import { useCallback, useEffect, useId, useState } from 'react';
import buttons from '@/components/button.module.css';
import form from '@/components/form.module.css';
import rows from '@/components/rows.module.css';
import { SaveStatus, type SaveState } from '@/components/status';
import { createInvite, getInvites, type Invite, type NewInvite, revokeInvite } from '@/lib/api/registration';
import { formatDate } from '@/lib/format';
import { useSubmit } from '@/lib/use-submit';
import styles from './invite-links.module.css';

const EXPIRY: { hours: number; label: string }[] = [
  { hours: 1, label: '1 hour' },
  { hours: 24, label: '1 day' },
  { hours: 24 * 7, label: '7 days' },
  { hours: 24 * 30, label: '30 days' },
];
const USES = [1, 5, 10, 25, 100];

const STATE_LABELS: Record<Invite['state'], string> = { active: 'Active', expired: 'Expired', used_up: 'Used up', revoked: 'Withdrawn' };
/** Why a link was withdrawn, as the server says it (docs/registration.md, "Invite links"). */
const WITHDRAWN_LABELS: Record<NonNullable<Invite['withdrawnBecause']>, string> = {
  by_hand: 'Withdrawn',
  maker_suspended: 'Withdrawn: its maker was suspended',
  maker_removed: 'Withdrawn: its maker’s account was removed',
  members_off: 'Withdrawn: “Members can invite” was turned off',
  maker_inactive: 'Withdrawn: its maker cannot use the server now',
};
const stateLabel = (inv: Invite) =>
  inv.state === 'active'
    ? `${inv.usesLeft} of ${inv.maxUses} uses left`
    : inv.withdrawnBecause
      ? WITHDRAWN_LABELS[inv.withdrawnBecause]
      : STATE_LABELS[inv.state];

const message = (err: unknown) => (err instanceof Error ? err.message : 'That did not work. Please try again.');

/**
 * Making, listing and withdrawing invite links (docs/registration.md): on the operator page for
 * every link, on the account page for the member's own when members may invite. The server
 * decides what the caller may see and do.
 */
export function InviteLinks() {
  const id = useId();
  const [invites, setInvites] = useState<Invite[] | null>(null);
  const [hours, setHours] = useState(24 * 7);
  const [uses, setUses] = useState(1);
  const [made, setMade] = useState<NewInvite | null>(null);
  const [status, setStatus] = useState<SaveState | null>(null);
  const submit = useSubmit((err) => setStatus({ error: true, text: message(err) }));

  const load = useCallback(async () => {
    try {
      setInvites((await getInvites()).invites);
    } catch (err) {
      setStatus({ error: true, text: message(err) });
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  async function run(action: () => Promise<unknown>) {
    await submit.run(action);
    await load();
  }

  return (
    <>
      <form
        className={form.card}
        onSubmit={(e) => {
          e.preventDefault();
          setStatus(null);
          void run(async () => setMade(await createInvite(hours, uses)));
        }}
      >
        <div className={styles.pair}>
          <label className={`${form.label} ${form.field}`}>
            Expires after
            <select className={form.input} value={hours} onChange={(e) => setHours(Number(e.target.value))}>
              {EXPIRY.map((x) => (
                <option key={x.hours} value={x.hours}>
                  {x.label}
                </option>
              ))}
            </select>
          </label>
          <label className={`${form.label} ${form.field}`}>
            Number of uses
            <select className={form.input} value={uses} onChange={(e) => setUses(Number(e.target.value))}>
              {USES.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
        </div>
        <button type="submit" className={buttons.primary} disabled={submit.busy}>
          Create invite link
        </button>
        {made && (
          <div className={styles.made} role="status">
            <label className={`${form.label} ${form.field}`} htmlFor={`${id}-link`}>
              New invite link (shown once: copy it now)
            </label>
            <input id={`${id}-link`} className={form.input} readOnly value={made.url} onFocus={(e) => e.target.select()} />
            <button
              type="button"
              className={`${buttons.secondary} ${buttons.small}`}
              onClick={() => void navigator.clipboard?.writeText(made.url).then(() => setStatus({ error: false, text: 'Link copied.' }))}
            >
              Copy link
            </button>
          </div>
        )}
        <SaveStatus status={status} />
      </form>
      {invites === null ? null : invites.length === 0 ? (
        <p className={rows.none}>No invite links yet.</p>
      ) : (
        <ul className={rows.rows} aria-label="Invite links">
          {invites.map((inv) => (
            <li key={inv.id} className={rows.row}>
              <div className={rows.rowText}>
                <strong>{stateLabel(inv)}</strong>
                <span className={rows.meta}>
                  By {inv.createdBy} · used {inv.uses} · {inv.state === 'expired' ? 'expired' : 'expires'} {formatDate(inv.expires_at)}
                </span>
              </div>
              {inv.state === 'active' && (
                <button type="button" className={`${buttons.secondary} ${buttons.small}`} disabled={submit.busy} onClick={() => void run(() => revokeInvite(inv.id))}>
                  Withdraw
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
