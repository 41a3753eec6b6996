import { useEffect, useState } from 'react';
import type { ApiHost } from '@/lib/first-requests';

/**
 * The answers index.html asked for before the app's code arrived (src/early-requests.ts),
 * by `${host} ${path}`. Each is used at most once, and only while fresh: after that the app
 * asks the server itself, as it would have without them.
 */
const FRESH_MS = 15_000;

const key = (host: ApiHost, path: string) => `${host} ${path}`;

function entry(host: ApiHost, path: string) {
  const early = window.showerBeerEarly?.[key(host, path)];
  if (!early) return undefined;
  if (performance.now() - early.sentAt > FRESH_MS) {
    delete window.showerBeerEarly![key(host, path)];
    return undefined;
  }
  return early;
}

/**
 * The early answer to this call, taken (for lib/api.ts): resolves to the parsed body of a 2xx,
 * or undefined when it failed or was refused (the caller then asks again and handles the error).
 * Undefined when there is none.
 */
export function takeEarly(host: ApiHost, path: string): Promise<unknown> | undefined {
  const early = entry(host, path);
  if (!early) return undefined;
  delete window.showerBeerEarly![key(host, path)];
  return early.answer;
}

/**
 * The early answer to this call if it has already arrived, so a screen's first render can
 * show it. Read once when the screen mounts; the screen's effect then forgets it (a screen
 * opened again later asks the server afresh).
 */
export function useEarlyAnswer<T>(host: ApiHost, path: string): T | undefined {
  const [value] = useState(() => {
    const early = entry(host, path);
    return early?.settled ? (early.value as T | undefined) : undefined;
  });
  useEffect(() => {
    if (value !== undefined) delete window.showerBeerEarly?.[key(host, path)];
  }, [host, path, value]);
  return value;
}

/** Resolves when every early request has been answered, or after `maxWaitMs`, whichever is first. */
export function earlyAnswers(maxWaitMs: number): Promise<void> {
  const pending = Object.values(window.showerBeerEarly ?? {}).filter((e) => !e.settled);
  if (pending.length === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, maxWaitMs);
    void Promise.all(pending.map((e) => e.answer)).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
