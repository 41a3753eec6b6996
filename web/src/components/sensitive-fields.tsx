import { useId } from 'react';
import { SwitchRow } from '@/components/switch-row';
import { getConfig } from '@/lib/config';
import styles from './sensitive-fields.module.css';

interface SensitiveFieldsProps {
  sensitive: boolean;
  warning: string;
  onChange: (sensitive: boolean, warning: string) => void;
  disabled?: boolean;
}

/**
 * The author marks a post sensitive, with an optional warning (docs/api.md, "Content warnings"):
 * on Create post and in the Edit post dialog. Everyone else then sees the photo blurred, with the
 * warning and "Show photo"; the author always sees it as it is.
 */
export function SensitiveFields({ sensitive, warning, onChange, disabled }: SensitiveFieldsProps) {
  const ids = { warning: useId(), counter: useId() };
  const max = getConfig().limits.contentWarningMaxLength;
  return (
    <div className={styles.fields}>
      <SwitchRow
        label="Mark as sensitive"
        hint="Others see the photo blurred until they choose to see it"
        checked={sensitive}
        onChange={(on) => onChange(on, warning)}
        disabled={disabled}
        labelClassName={styles.label}
        hintClassName={styles.hint}
      />
      {sensitive && (
        <>
          <div className={styles.warningRow}>
            <label htmlFor={ids.warning} className={styles.label}>
              Content warning <span className={styles.hint}>(optional)</span>
            </label>
            <span id={ids.counter} className={styles.counter}>
              {Array.from(warning).length}/{max}
            </span>
          </div>
          <input
            id={ids.warning}
            type="text"
            className={styles.input}
            value={warning}
            maxLength={max}
            placeholder="What the photo shows, in a few words"
            onChange={(e) => onChange(true, e.target.value)}
            aria-describedby={ids.counter}
            autoComplete="off"
            disabled={disabled}
          />
        </>
      )}
    </div>
  );
}
