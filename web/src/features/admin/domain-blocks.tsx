import { useCallback, useEffect, useId, useRef, useState } from 'react';
import buttons from '@/components/button.module.css';
import form from '@/components/form.module.css';
import rows from '@/components/rows.module.css';
import { SaveStatus, type SaveState } from '@/components/status';
import {
  exportDomainBlocks,
  getDomainBlocks,
  importDomainBlocks,
  liftDomainBlock,
  saveDomainBlock,
  type DomainBlock,
} from '@/lib/api/registration';
import { saveFile } from '@/lib/save-file';
import { errorText, useSubmit } from '@/lib/use-submit';
import styles from './federation-settings.module.css';

const SEVERITY_WORDS: Record<DomainBlock['severity'], string> = {
  suspend: 'Suspended',
  limit: 'Limited',
  noop: 'No restriction',
};

/** What a plural of people removed says after a suspension. */
const removedText = (n: number) => (n === 0 ? '' : n === 1 ? ' 1 person of theirs kept here was removed.' : ` ${n} people of theirs kept here were removed.`);

/**
 * Blocked servers on the operator settings page (issue 50, item 1; docs/self-hosting.md,
 * "Blocking servers"): suspend a server, lift a block, and Mastodon's CSV out and in. "Reject media"
 * from an imported list acts; limits are kept and exported as they came, and said not to act yet.
 */
export function DomainBlocks({ onChange }: { onChange: () => void }) {
  const id = useId();
  const [blocks, setBlocks] = useState<DomainBlock[] | null>(null);
  const [domain, setDomain] = useState('');
  const [reason, setReason] = useState('');
  const [note, setNote] = useState('');
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

  async function suspend(e: React.FormEvent) {
    e.preventDefault();
    setStatus(null);
    await acting.run(async () => {
      const saved = await saveDomainBlock({ domain, severity: 'suspend', publicComment: reason, privateComment: note });
      setStatus({ error: false, text: `${saved.block.domain} is suspended.${removedText(saved.removedPeople)}` });
      setDomain('');
      setReason('');
      setNote('');
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
          and posts. Its subdomains are blocked too.
        </p>
        <label className={form.field}>
          <span className={form.label}>Reason (in the exported list)</span>
          <input className={form.input} value={reason} onChange={(e) => setReason(e.target.value)} maxLength={1000} />
        </label>
        <label className={form.field}>
          <span className={form.label}>Note for operators</span>
          <input className={form.input} value={note} onChange={(e) => setNote(e.target.value)} maxLength={1000} />
        </label>
        <SaveStatus status={status} />
        <button type="submit" className={buttons.danger} disabled={acting.busy}>
          Suspend server
        </button>
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
                  {b.severity === 'limit' && ' (kept and exported; this server does not apply limits yet)'}
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
