import { useCallback, useEffect, useState } from 'react';

export interface Loaded<T> {
  /** What the server answered; null until then (and while it fails). */
  data: T | null;
  /** For a save that answers the new state. */
  setData: (data: T) => void;
  /** True when the last load failed: the section shows its error with a retry. */
  failed: boolean;
  /** Asks again (the retry button, or after a change elsewhere on the page). */
  reload: () => Promise<void>;
}

/**
 * A section that loads its own state once it is shown, as the operator's settings do (each part
 * loads and saves on its own; the server checks the operator on every call). `fetch` must be a
 * stable function (an import, not an inline arrow), since it is loaded again when it changes.
 */
export function useLoaded<T>(fetch: () => Promise<T>): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [failed, setFailed] = useState(false);
  const reload = useCallback(async () => {
    try {
      setData(await fetch());
      setFailed(false);
    } catch {
      setFailed(true);
    }
  }, [fetch]);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, setData, failed, reload };
}
