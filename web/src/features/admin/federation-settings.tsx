import form from '@/components/form.module.css';
import page from '@/components/page.module.css';
import rows from '@/components/rows.module.css';
import { ErrorMessage, Loading } from '@/components/status';
import { SwitchRow } from '@/components/switch-row';
import { getFederation, setFederation, type FederationStatus } from '@/lib/api/registration';
import { formatCount, postTime } from '@/lib/format';
import { useLoaded } from '@/lib/use-loaded';
import { useSubmit } from '@/lib/use-submit';
import { AuthorizedFetch } from './authorized-fetch';
import { DomainAllowList, DomainBlocks } from './domain-blocks';
import { Figure } from './figure';
import { RemoteMedia } from './remote-media';
import admin from './admin-page.module.css';
import styles from './federation-settings.module.css';

const plural = (n: number, one: string, many: string) => `${formatCount(n)} ${n === 1 ? one : many}`;

/** "in 4 min", "in 2 h": when a waiting delivery is tried next. */
function inTime(iso: string, now = Date.now()): string {
  const ms = Date.parse(iso) - now;
  if (!(ms > 60_000)) return 'within a minute';
  if (ms < 3_600_000) return `in ${Math.round(ms / 60_000)} min`;
  if (ms < 86_400_000) return `in ${Math.round(ms / 3_600_000)} h`;
  return `in ${Math.round(ms / 86_400_000)} d`;
}

/**
 * Federation on the operator settings page (issue 49, item 6; docs/self-hosting.md, "Federation"):
 * the switch, the other servers this one knows, what waits to be delivered to them, and the
 * deliveries that failed. Loads and saves on its own; the server checks the operator on every call.
 */
export function FederationSettings() {
  const { data: status, setData: setStatus, failed, reload: load } = useLoaded(getFederation);
  const switching = useSubmit('Federation could not be switched. Please try again.');


  async function change(next: boolean) {
    if (switching.busy) return;
    await switching.run(async () => setStatus(await setFederation(next)));
  }

  return (
    <section aria-labelledby="federation-heading" className={admin.section}>
      <h2 id="federation-heading" className={page.sectionTitle}>
        Federation
      </h2>
      {!status ? (
        failed ? (
          <ErrorMessage text="We couldn't load federation's state." onRetry={() => void load()} />
        ) : (
          <Loading />
        )
      ) : (
        <FederationBody
          status={status}
          busy={switching.busy}
          error={switching.error}
          onChange={(next) => void change(next)}
          onBlocksChanged={() => void load()}
          onStatus={setStatus}
        />
      )}
    </section>
  );
}

interface FederationBodyProps {
  status: FederationStatus;
  busy: boolean;
  error: string | null;
  onChange: (on: boolean) => void;
  /** A block changed who is known here: the figures are read again. */
  onBlocksChanged: () => void;
  /** A setting below the switch saved: the page shows what the server answered. */
  onStatus: (next: FederationStatus) => void;
}

function FederationBody({ status, busy, error, onChange, onBlocksChanged, onStatus }: FederationBodyProps) {
  const locked = status.setBy === 'environment';
  const cannot = !status.enabled && status.unavailable !== '';
  const hint = locked
    ? `Set by FEDERATION=${status.enabled ? 'on' : 'off'} in the server's environment; remove that setting to switch it here.`
    : cannot
      ? status.unavailable
      : status.enabled
        ? `People on Mastodon, Pixelfed and other servers can follow people here as @name@${status.handleHost}, and people here can follow them. Anonymous posts never leave this server.`
        : 'This server is on its own: nobody on another server can find or follow anyone here. Turn it on to follow and be followed across the fediverse.';
  const { totals, queue, failures } = status;
  // Off, and never on: the switch alone; the figures and lists would all say nothing yet.
  const never = !status.enabled && totals.servers === 0 && queue.waiting === 0 && failures.length === 0;
  return (
    <>
      <div>
        <SwitchRow
          label="Federation"
          hint={hint}
          checked={status.enabled}
          onChange={onChange}
          disabled={locked || cannot}
          busy={busy}
          labelClassName={styles.label}
          hintClassName={styles.hint}
        />
        {error && (
          <p role="alert" className={form.error}>
            {error}
          </p>
        )}
      </div>
      <AuthorizedFetch status={status} onStatus={onStatus} />
      {!never && <FederationFigures status={status} />}
      {!never && <RemoteMedia />}
      <DomainBlocks onChange={onBlocksChanged} />
      <DomainAllowList />
    </>
  );
}

function FederationFigures({ status }: { status: FederationStatus }) {
  const { totals, queue, failures } = status;
  return (
    <>
      <dl className={`${admin.figures} ${styles.figures}`} aria-label="Across servers">
        <Figure label="Servers" value={formatCount(totals.servers)} />
        <Figure label="Remote followers" value={formatCount(totals.followers)} />
        <Figure label="Remote follows" value={formatCount(totals.following)} />
        <Figure label="Waiting to send" value={formatCount(queue.waiting)} />
      </dl>

      <h3 className={styles.subheading}>Other servers</h3>
      {status.servers.length === 0 ? (
        <p className={rows.none}>No other server yet. They appear once someone here follows, or is followed by, someone there.</p>
      ) : (
        <ul className={rows.rows} aria-label="Other servers">
          {status.servers.map((s) => (
            <li key={s.host} className={rows.row}>
              <div className={rows.rowText}>
                <strong>{s.host}</strong>
                <span className={rows.meta}>
                  {plural(s.people, 'person', 'people')} known · {formatCount(s.followers)} following people here · {formatCount(s.following)} followed
                  from here
                </span>
              </div>
            </li>
          ))}
          {totals.servers > status.servers.length && (
            <li className={rows.row}>
              <span className={rows.meta}>and {plural(totals.servers - status.servers.length, 'more server', 'more servers')}</span>
            </li>
          )}
        </ul>
      )}

      <h3 className={styles.subheading}>Waiting to send</h3>
      {queue.servers.length === 0 ? (
        <p className={rows.none}>Nothing waits: every delivery has been sent.</p>
      ) : (
        <ul className={rows.rows} aria-label="Waiting to send">
          {queue.servers.map((s) => (
            <li key={s.host} className={rows.row}>
              <div className={rows.rowText}>
                <strong>{s.host}</strong>
                <span className={rows.meta}>
                  {plural(s.waiting, 'delivery', 'deliveries')}
                  {s.retrying > 0 && `, ${formatCount(s.retrying)} after a failure`} · next try {inTime(s.nextAttemptAt)}
                </span>
              </div>
            </li>
          ))}
        </ul>
      )}

      <h3 className={styles.subheading}>Failed deliveries</h3>
      {status.gaveUpLastWeek > 0 && (
        <p className={styles.gaveUp}>{plural(status.gaveUpLastWeek, 'delivery was', 'deliveries were')} given up on in the last 7 days.</p>
      )}
      {failures.length === 0 ? (
        <p className={rows.none}>None. A delivery that fails is tried again for about 3 days before it is given up.</p>
      ) : (
        <ul className={rows.rows} aria-label="Failed deliveries">
          {failures.map((f, i) => {
            const when = postTime(f.created_at);
            return (
              <li key={`${f.created_at}-${i}`} className={rows.row}>
                <div className={rows.rowText}>
                  <strong>{f.host}</strong>
                  <span className={rows.meta}>
                    {f.activity} · {f.error} · attempt {f.attempt} ·{' '}
                    <time dateTime={f.created_at} title={when.full}>
                      {when.text}
                    </time>
                  </span>
                </div>
                <span className={f.gaveUp ? styles.badgeGaveUp : styles.badgeRetry}>{f.gaveUp ? 'Given up' : 'Will retry'}</span>
              </li>
            );
          })}
        </ul>
      )}
    </>
  );
}

