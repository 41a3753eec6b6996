import { useCallback, useEffect, useRef, useState } from 'react';
import { Link, NavLink, useLocation } from 'react-router-dom';
import buttons from '@/components/button.module.css';
import { ShieldIcon } from '@/components/icons';
import page from '@/components/page.module.css';
import rows from '@/components/rows.module.css';
import { EmptyState, ErrorMessage, Loading } from '@/components/status';
import { ApiError } from '@/lib/api/client';
import { type AdminOverview, type AdminReport, dismissReports, earlyAdminOverview, forwardReports, getAdminOverview, liftSuspension, markSensitiveAsOperator, removeAsOperator, type ReportReason, suspend } from '@/lib/api/moderation';
import { formatCount, formatDate, readableBytes } from '@/lib/format';
import { useSubmit } from '@/lib/use-submit';
import { PasswordReset } from './password-reset';
import { ReasonDialog } from './reason-dialog';
import { FederationSettings } from './federation-settings';
import { Figure } from './figure';
import { JoinRequests, RegistrationSettings } from './registration-settings';
import styles from './admin-page.module.css';

const REASON_LABELS: Record<ReportReason, string> = {
  spam: 'Spam',
  nudity: 'Nudity',
  harassment: 'Harassment',
  other: 'Other',
};

const ACTION_LABELS: Record<AdminOverview['actions'][number]['action'], string> = {
  dismiss: 'Dismissed reports',
  remove_post: 'Removed a post',
  remove_comment: 'Removed a comment',
  suspend: 'Suspended',
  unsuspend: 'Lifted a suspension',
  approve_join: 'Let in',
  reject_join: 'Turned down',
  mark_sensitive: 'Marked a post sensitive',
  change_registration: 'Changed who may join',
  change_server_page: 'Changed the server page',
  make_invite: 'Made an invite link',
  withdraw_invite: 'Withdrew an invite link',
  make_reset_link: 'Made a password reset link for',
  change_federation: 'Turned federation',
  change_remote_media: 'Set remote media to',
  block_server: 'Blocked the server',
  unblock_server: 'Lifted the block on',
  allow_server: 'Put on the allow list',
  disallow_server: 'Took off the allow list',
  change_allow_list: 'Turned allow-list mode',
  forward_report: 'Forwarded',
};

/** The operator's second page: what is set once (app/screens.ts names both). */
export const ADMIN_SETTINGS_PATH = '/app/admin/settings';

/**
 * The two operator pages, one tap each on a phone (issue 48): what an operator does daily, and
 * what they set once. Real addresses, so the back button and a bookmark work.
 */
function OperatorTabs() {
  const tab = ({ isActive }: { isActive: boolean }) => (isActive ? `${styles.tab} ${styles.tabActive}` : styles.tab);
  return (
    <nav aria-label="Operator pages" className={styles.tabs}>
      <NavLink to="/app/admin" end className={tab}>
        Reports and requests
      </NavLink>
      <NavLink to={ADMIN_SETTINGS_PATH} className={tab}>
        Server settings
      </NavLink>
    </nav>
  );
}

interface Asking {
  title: string;
  explanation: string;
  confirmLabel: string;
  label?: string;
  initial?: string;
  run: (reason: string) => Promise<unknown>;
}

/**
 * `/app/admin`: the operator's daily page (reports, join requests, suspensions, the log, who the
 * operators are), and
 * `/app/admin/settings`: what is set once (the server page, who may join, invite links, reset
 * links). The server checks the role on every call.
 */
export function AdminPage() {

  // Asked for by index.html before this code arrived (src/early-requests.ts): then the first render is the page itself.
  const [early] = useState(() => earlyAdminOverview());
  const [overview, setOverview] = useState<AdminOverview | null>(early ?? null);
  const [error, setError] = useState<'forbidden' | 'failed' | null>(null);
  const [asking, setAsking] = useState<Asking | null>(null);
  const acting = useSubmit((err) => window.alert(err instanceof Error ? err.message : 'That did not work. Please try again.'));

  const load = useCallback(async (signal?: AbortSignal) => {
    try {
      setOverview(await getAdminOverview(signal));
      setError(null);
    } catch (err) {
      if (signal?.aborted) return;
      setError(err instanceof ApiError && err.status === 403 ? 'forbidden' : 'failed');
    }
  }, []);

  // Again on each move between the two pages: the same component shows both (app/screens.ts), so a
  // return to the daily page must read the log the settings page's saves wrote.
  const { pathname } = useLocation();
  const usedEarly = useRef(early !== undefined);
  useEffect(() => {
    if (usedEarly.current) {
      usedEarly.current = false;
      return;
    }
    const ac = new AbortController();
    void load(ac.signal);
    return () => ac.abort();
  }, [load, pathname]);

  async function act(run: () => Promise<unknown>) {
    await acting.run(run);
    await load();
  }

  function ask(a: Asking) {
    setAsking({
      ...a,
      run: async (reason) => {
        await a.run(reason);
        await load();
      },
    });
  }

  if (error === 'forbidden') {
    return (
      <div className={page.page}>
        <EmptyState icon={<ShieldIcon size={28} />} title="Operators only" text="Only the operators of this server can open this page.">
          <Link to="/app/discover" className={buttons.secondary}>
            Back to Discover
          </Link>
        </EmptyState>
      </div>
    );
  }
  if (!overview) {
    return (
      <div className={page.page}>
        {error ? <ErrorMessage text="We couldn't load the operator page." onRetry={() => void load()} /> : <Loading />}
      </div>
    );
  }

  const { figures, reports, suspended, actions, operators } = overview;
  if (pathname.replace(/\/+$/, '') === ADMIN_SETTINGS_PATH) {
    return (
      <div className={`${page.page} ${styles.wide}`}>
        <h1 className={page.title}>Server settings</h1>
        <p className={page.subtitle}>What this server is, who may join, the links that let people in, and the other servers it talks to.</p>
        <OperatorTabs />
        <RegistrationSettings />
        {operators.source === 'accounts' && (
          <section aria-labelledby="password-reset-heading" className={styles.section}>
            <h2 id="password-reset-heading" className={page.sectionTitle}>
              Password reset links
            </h2>
            <PasswordReset />
          </section>
        )}
        <FederationSettings />
      </div>
    );
  }
  return (
    <div className={`${page.page} ${styles.wide}`}>
      <h1 className={page.title}>Moderation</h1>
      <p className={page.subtitle}>Reports from the community, people asking to join, and what operators did.</p>
      <OperatorTabs />

      <dl className={styles.figures} aria-label="This server">
        <Figure label="Users" value={formatCount(figures.users)} />
        <Figure label="Posts" value={formatCount(figures.posts)} />
        <Figure label="Storage used" value={readableBytes(figures.storageBytes)} />
        <Figure label="Open reports" value={formatCount(figures.openReports)} />
        <Figure label="Suspended" value={formatCount(figures.suspendedUsers)} />
      </dl>

      <section aria-labelledby="reports-heading" className={styles.section}>
        <h2 id="reports-heading" className={page.sectionTitle}>
          Open reports
        </h2>
        {reports.length === 0 ? (
          <EmptyState icon={<ShieldIcon size={28} />} title="Nothing to look at" text="No open reports. Cheers!" />
        ) : (
          <ul className={styles.reports}>
            {reports.map((r) => (
              <ReportItem
                key={`${r.kind}-${r.itemId}`}
                report={r}
                busy={acting.busy}
                onDismiss={() => act(() => dismissReports(r.kind, r.itemId))}
                onRemove={() =>
                  ask({
                    title: r.kind === 'post' ? 'Remove post' : 'Remove comment',
                    explanation:
                      r.kind === 'post'
                        ? 'The post, its likes and comments are deleted, and its photos are removed from storage.'
                        : 'The comment disappears everywhere at once.',
                    confirmLabel: 'Remove',
                    run: (reason) => removeAsOperator(r.kind, r.itemId, reason),
                  })
                }
                onMarkSensitive={() =>
                  ask({
                    title: 'Mark post sensitive',
                    explanation: 'Everyone but its author then sees the photo blurred until they choose "Show photo". Its open reports are closed.',
                    confirmLabel: 'Mark sensitive',
                    run: (reason) => markSensitiveAsOperator(r.postId, reason, ''),
                  })
                }
                onForward={() =>
                  ask({
                    title: `Forward to ${r.authorHost}`,
                    explanation: `The reports go to ${r.authorHost}'s operators as coming from this server, with what you write here. Who reported it is never sent.`,
                    confirmLabel: 'Forward',
                    label: `What to tell ${r.authorHost}`,
                    initial: forwardText(r),
                    run: (comment) => forwardReports(r.kind, r.itemId, comment),
                  })
                }
                onSuspend={() =>
                  ask({
                    title: `Suspend ${r.author}`,
                    explanation: `${r.author} will not be able to sign in or write, and everything they posted, liked or commented is hidden until the suspension is lifted.`,
                    confirmLabel: 'Suspend',
                    run: (reason) => suspend(r.author, reason),
                  })
                }
              />
            ))}
          </ul>
        )}
      </section>

      <JoinRequests onAnswered={() => void load()} />

      <section aria-labelledby="suspended-heading" className={styles.section}>
        <h2 id="suspended-heading" className={page.sectionTitle}>
          Suspended accounts
        </h2>
        {suspended.length === 0 ? (
          <p className={rows.none}>Nobody is suspended.</p>
        ) : (
          <ul className={rows.rows}>
            {suspended.map((s) => (
              <li key={s.username} className={rows.row}>
                <div className={rows.rowText}>
                  <strong>{s.username}</strong>
                  <span className={rows.meta}>
                    Since {formatDate(s.created_at)}: {s.reason}
                  </span>
                </div>
                <button
                  type="button"
                  className={`${buttons.secondary} ${buttons.small}`}
                  disabled={acting.busy}
                  onClick={() => act(() => liftSuspension(s.username))}
                >
                  Lift suspension
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>


      <section aria-labelledby="log-heading" className={styles.section}>
        <h2 id="log-heading" className={page.sectionTitle}>
          Log
        </h2>
        {actions.length === 0 ? (
          <p className={rows.none}>No operator has acted yet.</p>
        ) : (
          <ol className={rows.rows} aria-label="Operator actions, newest first">
            {actions.map((a) => (
              <li key={a.id} className={styles.logRow}>
                <span className={rows.meta}>{formatDate(a.created_at)}</span>
                <span>
                  <strong>{a.operator}</strong> · {ACTION_LABELS[a.action]}: {a.target}
                </span>
                {a.reason && <span className={rows.meta}>“{a.reason}”</span>}
              </li>
            ))}
          </ol>
        )}
      </section>

      <section aria-labelledby="operators-heading" className={styles.section}>
        <h2 id="operators-heading" className={page.sectionTitle}>
          Operators
        </h2>
        {operators.source === 'provider_role' ? (
          <p className={rows.none}>Your identity provider decides: the people it gives the realm role shower-beer-admin.</p>
        ) : (
          <ul className={rows.rows} aria-label="Operators">
            {operators.accounts.map((o) => (
              <li key={o.username} className={rows.row}>
                <div className={rows.rowText}>
                  <strong>{o.username}</strong>
                  <span className={rows.meta}>
                    {o.grantedAs === 'first_account' ? 'The first account' : 'Named in ADMIN_USERNAMES'}, since {formatDate(o.since)}
                  </span>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>

      {asking && (
        <ReasonDialog
          title={asking.title}
          explanation={asking.explanation}
          confirmLabel={asking.confirmLabel}
          label={asking.label}
          initial={asking.initial}
          onConfirm={async (reason) => {
            await asking.run(reason);
          }}
          onClose={() => setAsking(null)}
        />
      )}
    </div>
  );
}


/** What a forward starts with: the reasons given here (not who gave them), for the operator to edit. */
function forwardText(r: AdminReport): string {
  const lines = r.reasons.filter((x) => x.fromHost === null).map((x) => (x.note ? `${REASON_LABELS[x.reason]}: ${x.note}` : REASON_LABELS[x.reason]));
  return [...new Set(lines)].join('\n');
}

interface ReportItemProps {
  report: AdminReport;
  busy: boolean;
  onDismiss: () => void;
  onForward: () => void;
  onRemove: () => void;
  onSuspend: () => void;
  onMarkSensitive: () => void;
}

function ReportItem({ report: r, busy, onDismiss, onForward, onRemove, onSuspend, onMarkSensitive }: ReportItemProps) {
  const what = r.kind === 'post' ? 'Post' : 'Comment';
  return (
    <li className={styles.report} aria-label={`Reported ${r.kind} by ${r.author}`}>
      <div className={styles.item}>
        {r.thumbnailUrl ? (
          <img className={styles.thumb} src={r.thumbnailUrl} alt={r.text ? `Reported photo: ${r.text}` : 'Reported photo'} width={96} height={96} />
        ) : (
          <span className={styles.quoteMark} aria-hidden="true">
            “
          </span>
        )}
        <div className={styles.itemText}>
          <p className={styles.kind}>
            {what} by <strong>{r.author}</strong>
            {r.authorSuspended && <span className={styles.badge}>suspended</span>}
            {/* Operators see the photo itself, told it is marked (docs/api.md, "Content warnings"). */}
            {r.sensitive && <span className={styles.badge}>sensitive</span>}
          </p>
          {r.sensitive?.warning && <p className={rows.meta}>Content warning: {r.sensitive.warning}</p>}
          {r.isAnonymous && (
            <p className={styles.anon}>Posted anonymously: only operators see who wrote it. Don’t share it.</p>
          )}
          <p className={styles.text}>{r.text || <em>No caption</em>}</p>
          <p className={rows.meta}>
            Posted {formatDate(r.created_at)} · {r.reporterCount} {r.reporterCount === 1 ? 'person' : 'people'} reported it, last on{' '}
            {formatDate(r.lastReportedAt)}
            {r.editedAt && ` · edited by its author ${formatDate(r.editedAt)}`}
          </p>
          {r.forwarded && (
            <p className={rows.meta}>
              Forwarded to {r.forwarded.host} on {formatDate(r.forwarded.created_at)}
            </p>
          )}
        </div>
      </div>
      {r.albumPhotos.length > 0 && (
        // Every photo of a reported album is part of what was reported, not only the first.
        <div className={styles.album}>
          <p className={rows.meta}>Album of {r.albumPhotos.length + 1} photos; the first is above, the others here:</p>
          <ul className={styles.albumStrip} aria-label="The album's other photos">
            {r.albumPhotos.map((p, i) => (
              <li key={i}>
                <img className={styles.albumThumb} src={p.thumbnailUrl} alt={p.altText ? `Photo ${i + 2}: ${p.altText}` : `Photo ${i + 2} of the album`} width={64} height={64} />
              </li>
            ))}
          </ul>
        </div>
      )}
      {r.history.length > 0 && (
        // Open from the start: an edit must not hide what was reported (docs/api.md, "Editing a post").
        <details className={styles.history} open>
          <summary>Before it was edited ({r.history.length === 1 ? '1 earlier version' : `${r.history.length} earlier versions`})</summary>
          <ol aria-label="Earlier versions, newest first">
            {r.history.map((v, i) => (
              <li key={i}>
                <span className={rows.meta}>Written {formatDate(v.created_at)}</span>
                <p className={styles.text}>{v.caption || <em>No caption</em>}</p>
                {/* An album's version: every photo's description then, so none can be edited out of sight. */}
                {(v.photos ?? [{ altText: v.altText }]).map(
                  (p, n, all) =>
                    p.altText && (
                      <p key={n} className={rows.meta}>
                        {all.length > 1 ? `Photo ${n + 1} of ${all.length} description` : 'Photo description'}: {p.altText}
                      </p>
                    ),
                )}
              </li>
            ))}
          </ol>
        </details>
      )}
      <ul className={styles.reasons} aria-label="Reasons given">
        {r.reasons.map((x, i) => (
          <li key={i}>
            <span className={styles.reason}>{REASON_LABELS[x.reason]}</span>
            {/* A report another server sent: its reporter is not named to us (a Flag; docs/api.md). */}
            {x.fromHost && <span className={rows.meta}>from a person on {x.fromHost}</span>}
            {x.note && <span className={styles.note}>{x.note}</span>}
          </li>
        ))}
      </ul>
      <div className={styles.actions}>
        <button type="button" className={`${buttons.secondary} ${buttons.small}`} onClick={onDismiss} disabled={busy}>
          Dismiss
        </button>
        <button type="button" className={`${buttons.danger} ${buttons.small}`} onClick={onRemove} disabled={busy}>
          Remove {r.kind}
        </button>
        {r.authorHost && !r.forwarded && (
          <button type="button" className={`${buttons.secondary} ${buttons.small}`} onClick={onForward} disabled={busy}>
            Forward to {r.authorHost}
          </button>
        )}
        {r.kind === 'post' && !r.sensitive && (
          <button type="button" className={`${buttons.secondary} ${buttons.small}`} onClick={onMarkSensitive} disabled={busy}>
            Mark sensitive
          </button>
        )}
        {!r.authorSuspended && (
          <button type="button" className={`${buttons.danger} ${buttons.small}`} onClick={onSuspend} disabled={busy}>
            Suspend {r.author}
          </button>
        )}
      </div>
    </li>
  );
}
