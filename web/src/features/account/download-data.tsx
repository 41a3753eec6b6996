import { useEffect, useRef, useState } from 'react';
import buttons from '@/components/button.module.css';
import form from '@/components/form.module.css';
import { ApiError } from '@/lib/api/client';
import { downloadExport } from '@/lib/api/export';
import { readableBytes } from '@/lib/format';
import { saveFile } from '@/lib/save-file';
import { errorText } from '@/lib/use-submit';
import styles from './account-page.module.css';

/**
 * "Download my data" on the own profile: a zip of the profile, posts, comments,
 * likes, follows and photos (docs/api.md, "Your data export"). The server writes
 * it as it goes and cannot say its size first, so progress is the bytes so far.
 */
export function DownloadData({ username }: { username: string }) {
  /** Bytes received while downloading; null when idle. */
  const [received, setReceived] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<{ fileName: string; size: number } | null>(null);
  const abort = useRef<AbortController | null>(null);

  // Leaving the page ends the download: nobody is there to save it.
  useEffect(() => () => abort.current?.abort(), []);

  async function download() {
    if (received !== null) return;
    const controller = new AbortController();
    abort.current = controller;
    setError(null);
    setSaved(null);
    setReceived(0);
    try {
      const { zip, fileName } = await downloadExport(setReceived, controller.signal);
      const name = fileName ?? `shower-beer-${username}-${new Date().toISOString().slice(0, 10)}.zip`;
      saveFile(zip, name);
      setSaved({ fileName: name, size: zip.size });
    } catch (err) {
      if (controller.signal.aborted) return;
      if (err instanceof ApiError && err.status === 429) {
        setError('You have downloaded your data several times in the last hour. Please try again later.');
      } else {
        setError(errorText(err, 'Your data could not be downloaded. Please try again.'));
      }
    } finally {
      if (!controller.signal.aborted) setReceived(null);
    }
  }

  const busy = received !== null;
  return (
    <div className={styles.download}>
      <button type="button" className={`${buttons.secondary} ${styles.downloadButton}`} onClick={download} disabled={busy}>
        {busy ? 'Preparing your data…' : 'Download my data'}
      </button>
      {busy && (
        <div className={styles.downloadProgress} role="status">
          <progress className={styles.downloadBar} aria-label="Data download progress" />
          <span>Preparing… {readableBytes(received)}</span>
        </div>
      )}
      {saved && !busy && (
        <p className={styles.downloadDone} role="status">
          Downloaded {saved.fileName} ({readableBytes(saved.size)}).
        </p>
      )}
      {error && (
        <p role="alert" className={form.error}>
          {error}
        </p>
      )}
    </div>
  );
}
