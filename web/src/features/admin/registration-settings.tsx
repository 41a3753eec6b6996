import { useCallback, useEffect, useId, useState } from 'react';
import buttons from '@/components/button.module.css';
import { InviteLinks } from '@/components/invite-links';
import form from '@/components/form.module.css';
import page from '@/components/page.module.css';
import rows from '@/components/rows.module.css';
import { ErrorMessage, Loading, SaveStatus, type SaveState } from '@/components/status';
import { approveJoin, getInstance, getJoinRequests, type Instance, type JoinRequest, type RegistrationMode, rejectJoin, updateInstance } from '@/lib/api/registration';
import { instanceChanged } from '@/lib/config';
import { formatDate } from '@/lib/format';
import { useLoaded } from '@/lib/use-loaded';
import { useSubmit } from '@/lib/use-submit';
import styles from './registration-settings.module.css';
import admin from './admin-page.module.css';

const MODES: { value: RegistrationMode; label: string; hint: string }[] = [
  { value: 'open', label: 'Open', hint: 'Anyone can sign up.' },
  { value: 'approval', label: 'Approval', hint: 'New accounts wait until an operator lets them in.' },
  { value: 'invite', label: 'Invite only', hint: 'Sign-up needs an invite link.' },
  { value: 'closed', label: 'Closed', hint: 'Nobody new can join; everyone who has an account still signs in as before.' },
];


const message = (err: unknown) => (err instanceof Error ? err.message : 'That did not work. Please try again.');

/**
 * The operator settings page's parts for who may join (docs/registration.md): the server's own
 * page (name, description, rules, contact), the registration mode and invite links. Each part
 * loads and saves on its own; the server checks the operator on every call. The accounts waiting
 * for approval are on the daily page (JoinRequests, below).
 */
export function RegistrationSettings() {
  const { data: instance, setData: setInstance, failed, reload: load } = useLoaded(getInstance);

  if (!instance) return failed ? <ErrorMessage text="We couldn't load this server's settings." onRetry={() => void load()} /> : <Loading />;
  return (
    <>
      <ServerPage instance={instance} onSaved={setInstance} />
      <WhoMayJoin instance={instance} onSaved={setInstance} />
      <section aria-labelledby="invite-links-heading" className={admin.section}>
        <h2 id="invite-links-heading" className={page.sectionTitle}>
          Invite links
        </h2>
        <InviteLinks />
      </section>
    </>
  );
}

function ServerPage({ instance, onSaved }: { instance: Instance; onSaved: (i: Instance) => void }) {
  const id = useId();
  const [name, setName] = useState(instance.name);
  const [description, setDescription] = useState(instance.description);
  const [rules, setRules] = useState(instance.rules.join('\n'));
  const [contact, setContact] = useState(instance.contact);
  const [status, setStatus] = useState<SaveState | null>(null);
  const saving = useSubmit((err) => setStatus({ error: true, text: message(err) }));

  async function save(e: React.FormEvent) {
    e.preventDefault();
    await saving.run(async () => {
      const saved = await updateInstance({ name, description, rules, contact });
      onSaved(saved);
      // The app's own copy, so the tab's title names the server at once ("Moderation · <name>", app/route-title.tsx).
      instanceChanged(saved);
      setRules(saved.rules.join('\n'));
      setStatus({ error: false, text: 'Saved. The landing page shows it now.' });
    });
  }

  return (
    <section aria-labelledby={`${id}-h`} className={admin.section}>
      <h2 id={`${id}-h`} className={page.sectionTitle}>
        Server page
      </h2>
      {/* The version a self-hoster runs, to match against CHANGELOG.md before and after an upgrade. */}
      <p className={form.hint} data-testid="app-version">
        Shower Beer {instance.version}
      </p>
      <form className={form.card} onSubmit={save}>
        <label className={`${form.label} ${form.field}`} htmlFor={`${id}-name`}>
          Name
        </label>
        <input id={`${id}-name`} className={form.input} value={name} maxLength={60} required onChange={(e) => setName(e.target.value)} />
        <label className={`${form.label} ${form.field}`} htmlFor={`${id}-description`}>
          Short description
        </label>
        <textarea
          id={`${id}-description`}
          className={`${form.input} ${styles.description}`}
          rows={4}
          maxLength={500}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
        <label className={`${form.label} ${form.field}`} htmlFor={`${id}-rules`}>
          Rules
        </label>
        <textarea
          id={`${id}-rules`}
          className={form.input}
          rows={5}
          value={rules}
          aria-describedby={`${id}-rules-hint`}
          onChange={(e) => setRules(e.target.value)}
        />
        <p id={`${id}-rules-hint`} className={form.hint}>
          One rule a line, at most 20 rules of 300 characters. Shown on the landing page and at sign-up.
        </p>
        <label className={`${form.label} ${form.field}`} htmlFor={`${id}-contact`}>
          How to reach the operators
        </label>
        <input
          id={`${id}-contact`}
          className={form.input}
          value={contact}
          maxLength={200}
          aria-describedby={`${id}-contact-hint`}
          onChange={(e) => setContact(e.target.value)}
        />
        <p id={`${id}-contact-hint`} className={form.hint}>
          An email address or a line such as “@olga on Signal”. Shown on the landing page and on “Forgot password?”; without it,
          those name the operators’ accounts.
        </p>
        <SaveStatus status={status} />
        <button type="submit" className={buttons.primary} disabled={saving.busy}>
          Save server page
        </button>
      </form>
    </section>
  );
}

function WhoMayJoin({ instance, onSaved }: { instance: Instance; onSaved: (i: Instance) => void }) {
  const id = useId();
  const [mode, setMode] = useState<RegistrationMode>(instance.registrationMode);
  const [membersCanInvite, setMembersCanInvite] = useState(instance.membersCanInvite);
  const [status, setStatus] = useState<SaveState | null>(null);
  const saving = useSubmit((err) => setStatus({ error: true, text: message(err) }));

  async function save(e: React.FormEvent) {
    e.preventDefault();
    await saving.run(async () => {
      onSaved(await updateInstance({ registrationMode: mode, membersCanInvite }));
      setStatus({ error: false, text: `Saved: ${MODES.find((m) => m.value === mode)?.label ?? mode}.` });
    });
  }

  return (
    <section aria-labelledby={`${id}-h`} className={admin.section}>
      <h2 id={`${id}-h`} className={page.sectionTitle}>
        Who may join
      </h2>
      <form className={form.card} onSubmit={save}>
        <fieldset className={styles.fieldset}>
          <legend className={`${form.label} ${form.field}`}>Registration</legend>
          {MODES.map((m) => (
            <label key={m.value} className={styles.choice}>
              <input type="radio" name={`${id}-mode`} value={m.value} checked={mode === m.value} onChange={() => setMode(m.value)} />
              <span>
                <strong>{m.label}</strong>
                <span className={form.hint}>{m.hint}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <label className={styles.choice}>
          <input type="checkbox" checked={membersCanInvite} onChange={(e) => setMembersCanInvite(e.target.checked)} />
          <span>
            <strong>Members can invite</strong>
            <span className={form.hint}>
              Everyone on the server can make invite links, not only operators. Turning it off withdraws the open links members made;
              turning it on again does not bring them back.
            </span>
          </span>
        </label>
        <SaveStatus status={status} />
        <button type="submit" className={buttons.primary} disabled={saving.busy}>
          Save registration
        </button>
      </form>
    </section>
  );
}

/** The accounts waiting for approval, on the operator's daily page; `onAnswered`: the moderation log there has a new entry. */
export function JoinRequests({ onAnswered }: { onAnswered?: () => void }) {
  const id = useId();
  const [requests, setRequests] = useState<JoinRequest[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const answering = useSubmit((err) => setError(message(err)));
  const load = useCallback(async () => {
    try {
      setRequests((await getJoinRequests()).requests);
    } catch (err) {
      setError(message(err));
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  async function run(action: () => Promise<unknown>) {
    setError(null);
    await answering.run(async () => {
      await action();
      onAnswered?.();
    });
    await load();
  }

  return (
    <section aria-labelledby={`${id}-h`} className={admin.section}>
      <h2 id={`${id}-h`} className={page.sectionTitle}>
        Waiting for approval
      </h2>
      <SaveStatus status={error === null ? null : { error: true, text: error }} />
      {requests === null ? null : requests.length === 0 ? (
        <p className={rows.none}>Nobody is waiting.</p>
      ) : (
        <ul className={rows.rows} aria-label="Accounts waiting for approval">
          {requests.map((r) => (
            <li key={r.username} className={`${rows.row} ${styles.request}`}>
              <div className={rows.rowText}>
                <strong>{r.username}</strong>
                <span className={rows.meta}>Asked {formatDate(r.created_at)}</span>
                <span>{r.reason ? `“${r.reason}”` : 'No reason given.'}</span>
              </div>
              <div className={styles.buttons}>
                <button
                  type="button"
                  className={`${buttons.primary} ${buttons.small}`}
                  disabled={answering.busy}
                  aria-label={`Approve ${r.username}`}
                  onClick={() => void run(() => approveJoin(r.username))}
                >
                  Approve
                </button>
                <button
                  type="button"
                  className={`${buttons.danger} ${buttons.small}`}
                  disabled={answering.busy}
                  aria-label={`Reject ${r.username}`}
                  onClick={() => void run(() => rejectJoin(r.username))}
                >
                  Reject
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
