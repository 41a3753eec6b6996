import { useRef, useState } from 'react';
import { ApiError } from '@/lib/api/client';

/** The server's reason when it gave one (an ApiError's message), else `fallback`. */
export function errorText(err: unknown, fallback: string): string {
  return err instanceof ApiError ? err.message : fallback;
}

export interface Submit {
  /** True while the action runs: the form's buttons say so. */
  busy: boolean;
  /** The last failure's text for the form to show (null: none); cleared when the action runs again. */
  error: string | null;
  /** For what the form checks itself before sending. */
  setError: (text: string | null) => void;
  /**
   * Runs the action unless one is already running (a second press, even in the same task, does
   * nothing); answers true when it succeeded. A failure becomes `error`, or goes to `onError`.
   */
  run: (action: () => Promise<unknown>) => Promise<boolean>;
}

/**
 * A form's (or a button's) submit state, written once for every form of the app.
 *
 * `failed` is either the text shown when the failure carries no reason of the server's
 * (`errorText`), or what to do instead of showing one (an alert, a field's own message, asking
 * the server again): it is awaited before `busy` ends.
 */
export function useSubmit(failed: string | ((err: unknown) => void | Promise<void>)): Submit {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // A ref as well as the state: the state a handler sees is the one of its render, so two presses
  // before the next render would both see busy false.
  const running = useRef(false);

  async function run(action: () => Promise<unknown>) {
    if (running.current) return false;
    running.current = true;
    setBusy(true);
    setError(null);
    try {
      await action();
      return true;
    } catch (err) {
      if (typeof failed === 'string') setError(errorText(err, failed));
      else await failed(err);
      return false;
    } finally {
      running.current = false;
      setBusy(false);
    }
  }

  return { busy, error, setError, run };
}
