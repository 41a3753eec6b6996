import { useEffect, useState } from 'react';
import { getStorage, type StorageUse as Use } from '@/lib/api/people';
import { readableBytes } from '@/lib/format';
import styles from './account-page.module.css';

/** "Storage: 3.4 MB of 1 GB used", under the profile's counts. Reloads when the posts change. */
export function StorageUse({ version }: { version: number }) {
  const [use, setUse] = useState<Use | null>(null);
  useEffect(() => {
    getStorage()
      .then(setUse)
      .catch((err: unknown) => console.error('Failed to load storage use', err));
  }, [version]);
  if (!use) return null;
  const { usedBytes, quotaBytes } = use;
  if (quotaBytes === 0) return <p className={styles.storage}>Storage used: {readableBytes(usedBytes)}</p>;
  return (
    <div className={styles.storage}>
      <p>
        Storage: {readableBytes(usedBytes)} of {readableBytes(quotaBytes)} used
      </p>
      <meter className={styles.storageMeter} min={0} max={quotaBytes} value={usedBytes} high={quotaBytes * 0.9} aria-label="Storage used" />
    </div>
  );
}
