import { useId, type ReactNode } from 'react';
import switches from '@/components/switch.module.css';

interface SwitchRowProps {
  label: string;
  /** What on (or off) means, read with the switch (aria-describedby). */
  hint: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  /** While the form is sending: the switch cannot be used. */
  disabled?: boolean;
  /** While a setting is being saved or read: the switch stays focusable and says it is unavailable. */
  busy?: boolean;
  /** The screen's own text styles for the label and the hint. */
  labelClassName?: string;
  hintClassName?: string;
}

/**
 * A labelled on/off switch with its hint: a checkbox with role="switch" (switch.module.css).
 * Post Anonymously and Mark as sensitive on Create post, Private account and Always show
 * sensitive photos on the account page.
 */
export function SwitchRow({ label, hint, checked, onChange, disabled, busy, labelClassName, hintClassName }: SwitchRowProps) {
  const ids = { toggle: useId(), hint: useId() };
  return (
    <div className={switches.toggleRow}>
      <div>
        <label htmlFor={ids.toggle} className={labelClassName}>
          {label}
        </label>
        <p id={ids.hint} className={hintClassName}>
          {hint}
        </p>
      </div>
      <input
        id={ids.toggle}
        type="checkbox"
        role="switch"
        className={switches.switch}
        checked={checked}
        onChange={(e) => onChange(e.target.checked)}
        aria-describedby={ids.hint}
        aria-disabled={busy || undefined}
        disabled={disabled}
      />
    </div>
  );
}
