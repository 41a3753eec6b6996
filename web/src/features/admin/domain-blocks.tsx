import { useCallback, useEffect, useId, useRef, useState } from 'react';
import buttons from '@/components/button.module.css';
import form from '@/components/form.module.css';
import rows from '@/components/rows.module.css';
import { SaveStatus, type SaveState } from '@/components/status';
import { SwitchRow } from '@/components/switch-row';
import {
  allowDomain,
  disallowDomain,
  exportDomainBlocks,
  getDomainAllows,
  getDomainBlocks,
  importDomainBlocks,
  liftDomainBlock,
  saveDomainBlock,
  setAllowListMode,
  type DomainAllows,
  type DomainBlock,
} from '@/lib/api/registration';
import { saveFile } from '@/lib/save-file';
import { errorText, useSubmit } from '@/lib/use-submit';
import styles from './federation-settings.module.css';
import choices from './registration-settings.module.css';

const SEVERITY_WORDS: Record<DomainBlock['severity'], string> = {
  suspend: 'Suspended',
  limit: 'Limited',
  noop: 'No restriction',
};

/** What a plural of people removed says after a suspension. */
const removedText = (n: number) => (n === 0 ? '' : n === 1 ? ' 1 person of theirs kept here was removed.' : ` ${n} people of theirs kept here were removed.`);

/**
 * Blocked servers on the operator settings page (issue 50, item 1; docs/self-hosting.md,
 * "Blocking servers"): suspend or limit a server, lift a block, and Mastodon's CSV out and in.
 */
export function DomainBlocks({ onChange }: { onChange: () => void }) {
  const id = useId();
  const [blocks, setBlocks] = useState<DomainBlock[] | null>(null);
  const [domain, setDomain] = useState('');
  const [reason, setReason] = useState('');
  const [note, setNote] = useState('');
  const [rejectMedia, setRejectMedia] = useState(false);
  const [status, setStatus] = useState<SaveState | null>(null);
  const acting = useSubmit((err) => setStatus({ error: true, text: errorText(err, 'That did not work. Please try again.') }));
  const file = useRef<HTMLInputElement>(null);

  const load = useCallback(async () => {
    try {
      setBlocks((await getDomainBlocks()).blocks);
    } catch (err) {
      setStatus({ error: true, text: errorText(err, 'That did not work. Please try again.') });
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  async function suspend(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    // Which button sent the form: "Reject media only", "Limit server" or "Suspend server".
    const pressed = (e.nativeEvent as SubmitEvent).submitter?.getAttribute('value');
    const severity = pressed === 'noop' ? 'noop' : pressed === 'limit' ? 'limit' : 'suspend';
    // A suspension keeps nothing of theirs, media included; "Reject media only" is that and no more.
    const media = severity === 'noop' || (severity === 'limit' && rejectMedia);
    setStatus(null);
    await acting.run(async () => {
      const saved = await saveDomainBlock({ domain, severity, rejectMedia: media, publicComment: reason, privateComment: note });
      const done =
        severity === 'noop'
          ? 'has its media rejected: its posts are not kept here.'
          : severity === 'limit'
            ? `is limited: its people are shown only to those who follow them.${media ? ' Its media is rejected.' : ''}`
            : 'is suspended.';
      setStatus({ error: false, text: `${saved.block.domain} ${done}${removedText(saved.removedPeople)}` });
      setDomain('');
      setReason('');
      setNote('');
      setRejectMedia(false);
      await load();
      onChange();
    });
  }

  async function lift(block: DomainBlock) {
    if (!window.confirm(`Lift the block on ${block.domain}? Its people can follow and be followed again; what was removed does not come back.`)) return;
    setStatus(null);
    await acting.run(async () => {
      await liftDomainBlock(block.domain);
      setStatus({ error: false, text: `The block on ${block.domain} is lifted.` });
      await load();
      onChange();
    });
  }

  async function exportList() {
    setStatus(null);
    await acting.run(async () => saveFile(await exportDomainBlocks(), 'domain_blocks.csv'));
  }

  async function importList(chosen: File | undefined) {
    if (!chosen) return;
    setStatus(null);
    await acting.run(async () => {
      const result = await importDomainBlocks(await chosen.text());
      const skipped = result.skipped.length === 0 ? '' : ` ${result.skipped.length} skipped: ${result.skipped.map((s) => s.reason).join(' ')}`;
      setStatus({ error: result.skipped.length > 0, text: `${result.imported} imported.${removedText(result.removedPeople)}${skipped}` });
      await load();
      onChange();
    });
    if (file.current) file.current.value = '';
  }

  return (
    <>
      <h3 className={styles.subheading}>Blocked servers</h3>
      <form className={form.card} onSubmit={suspend} aria-label="Suspend a server">
        <label className={form.field}>
          <span className={form.label}>Server</span>
          <input
            className={form.input}
            value={domain}
            onChange={(e) => setDomain(e.target.value)}
            placeholder="spam.example"
            autoCapitalize="none"
            autoCorrect="off"
            spellCheck={false}
            required
            aria-describedby={`${id}-domain-hint`}
          />
        </label>
        <p id={`${id}-domain-hint`} className={form.hint}>
          Suspending a server stops everything in and out, and removes its people kept here with their follows, likes, comments
          and posts. Limiting it shows its people only to those who follow them: out of Discover, tags and search, and no
          notifications from them to anyone else. Its subdomains are blocked too.
        </p>
        <label className={choices.choice}>
          <input type="checkbox" checked={rejectMedia} onChange={(e) => setRejectMedia(e.target.checked)} />
          <span>
            <strong>Reject media</strong>
            <span className={form.hint}>
              With a limit: their photos and pictures are not fetched, so their posts are not kept here. &ldquo;Reject media
              only&rdquo; does this alone.
            </span>
          </span>
        </label>
        <label className={form.field}>
          <span className={form.label}>Reason (in the exported list)</span>
          <input className={form.input} value={reason} onChange={(e) => setReason(e.target.value)} maxLength={1000} />
        </label>
        <label className={form.field}>
          <span className={form.label}>Note for operators</span>
          <input className={form.input} value={note} onChange={(e) => setNote(e.target.value)} maxLength={1000} />
        </label>
        <SaveStatus status={status} />
        <div className={styles.csvActions}>
          <button type="submit" name="severity" value="noop" className={buttons.secondary} disabled={acting.busy}>
            Reject media only
          </button>
          <button type="submit" name="severity" value="limit" className={buttons.secondary} disabled={acting.busy}>
            Limit server
          </button>
          <button type="submit" name="severity" value="suspend" className={buttons.danger} disabled={acting.busy}>
            Suspend server
          </button>
        </div>
      </form>

      {blocks === null ? null : blocks.length === 0 ? (
        <p className={rows.none}>No server is blocked.</p>
      ) : (
        <ul className={rows.rows} aria-label="Blocked servers">
          {blocks.map((b) => (
            <li key={b.domain} className={rows.row}>
              <div className={rows.rowText}>
                <strong>{b.domain}</strong>
                <span className={rows.meta}>
                  {SEVERITY_WORDS[b.severity]}
                  {b.rejectMedia && ', media rejected'}
                  {b.publicComment && ` · “${b.publicComment}”`}
                  {b.privateComment && ` · note: ${b.privateComment}`}
                </span>
              </div>
              <button type="button" className={buttons.secondary} onClick={() => void lift(b)} disabled={acting.busy} aria-label={`Lift the block on ${b.domain}`}>
                Lift
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className={styles.csvActions}>
        <button type="button" className={buttons.secondary} onClick={() => void exportList()} disabled={acting.busy}>
          Export CSV
        </button>
        <label className={buttons.secondary}>
          Import CSV
          <input
            ref={file}
            type="file"
            accept=".csv,text/csv"
            className={styles.fileInput}
            onChange={(e) => void importList(e.target.files?.[0])}
            disabled={acting.busy}
          />
        </label>
      </div>
      <p className={form.hint}>Mastodon&apos;s format (#domain,#severity,#reject_media,…), to share a list with other servers&apos; operators.</p>
    </>
  );
}

/**
 * Allow-list mode on the operator settings page (issue 50, item 1; docs/api.md, "Allow-list
 * mode"): when on, only the servers listed here federate, in and out. Beside the block list, which
 * still applies to a listed server.
 */
export function DomainAllowList() {
  const [list, setList] = useState<DomainAllows | null>(null);
  const [domain, setDomain] = useState('');
  const [comment, setComment] = useState('');
  const [status, setStatus] = useState<SaveState | null>(null);
  const acting = useSubmit((err) => setStatus({ error: true, text: errorText(err, 'That did not work. Please try again.') }));

  useEffect(() => {
    getDomainAllows()
      .then(setList)
      .catch((err: unknown) => setStatus({ error: true, text: errorText(err, 'That did not work. Please try again.') }));
  }, []);

  async function toggle(enabled: boolean) {
    if (enabled && list?.allows.length === 0 && !window.confirm('No server is on the allow list: turning it on stops federation with every server. Turn it on?')) return;
    setStatus(null);
    await acting.run(async () => {
      setList(await setAllowListMode(enabled));
      setStatus({ error: false, text: enabled ? 'Allow-list mode is on: only the servers listed here federate.' : 'Allow-list mode is off.' });
    });
  }

  async function add(e: React.FormEvent) {
    e.preventDefault();
    setStatus(null);
    await acting.run(async () => {
      setList(await allowDomain(domain, comment));
      setStatus({ error: false, text: `${domain.trim()} is on the allow list.` });
      setDomain('');
      setComment('');
    });
  }

  async function remove(name: string) {
    setStatus(null);
    await acting.run(async () => {
      setList(await disallowDomain(name));
      setStatus({ error: false, text: `${name} is off the allow list.` });
    });
  }

  return (
    <>
      <h3 className={styles.subheading}>Allowed servers</h3>
      <div>
        <SwitchRow
          label="Allow-list mode"
          hint="Only the servers listed here federate: others' deliveries are refused, nothing is sent to them, and search does not look them up."
          checked={list?.enabled ?? false}
          onChange={(on) => void toggle(on)}
          disabled={list === null}
          busy={acting.busy}
          labelClassName={styles.label}
          hintClassName={styles.hint}
        />
      </div>
      <form className={form.card} onSubmit={add} aria-label="Allow a server">
        <label className={form.field}>
          <span className={form.label}>Server to allow</span>
          <input
            className={form.input}
            value={domain}
            onChange={(e) => setDomain(e.target.value)}
            placeholder="friends.example"
            autoCapitalize="none"
            autoCorrect="off"
            spellCheck={false}
            required
          />
        </label>
        <label className={form.field}>
          <span className={form.label}>Note for operators</span>
          <input className={form.input} value={comment} onChange={(e) => setComment(e.target.value)} maxLength={1000} />
        </label>
        <SaveStatus status={status} />
        <button type="submit" className={buttons.secondary} disabled={acting.busy}>
          Allow server
        </button>
      </form>
      {list === null ? null : list.allows.length === 0 ? (
        <p className={rows.none}>No server is on the allow list.</p>
      ) : (
        <ul className={rows.rows} aria-label="Allowed servers">
          {list.allows.map((a) => (
            <li key={a.domain} className={rows.row}>
              <div className={rows.rowText}>
                <strong>{a.domain}</strong>
                {a.comment && <span className={rows.meta}>note: {a.comment}</span>}
              </div>
              <button type="button" className={buttons.secondary} onClick={() => void remove(a.domain)} disabled={acting.busy} aria-label={`Take ${a.domain} off the allow list`}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
