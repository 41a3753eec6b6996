// The answers index.html asked for before the app's code arrived (src/early-requests.ts), kept
// by the call itself (`${host} ${path}`). Each is used at most once, and only while fresh:
// after that the app asks the server itself, as it would have without them.
import { callKey, type ApiCall } from '@/lib/first-requests';

const EARLY_FRESH_MS = 15_000;

/** The early answer to this call, taken (it is used once); undefined when there is none or it is stale. */
export function takeEarly(call: ApiCall) {
  const early = window.showerBeerEarly?.[callKey(call)];
  if (!early) return undefined;
  delete window.showerBeerEarly![callKey(call)];
  return performance.now() - early.sentAt > EARLY_FRESH_MS ? undefined : early;
}

/**
 * The 2xx answer to this call if index.html's early request has already brought it, so a screen's
 * first render can show it; taken, so a screen opened again later asks the server afresh. Taken
 * after this task, not at once: React calls a state initialiser twice in a row in StrictMode.
 */
export function arrived<T>(call: ApiCall): T | undefined {
  const early = window.showerBeerEarly?.[callKey(call)];
  if (!early?.settled || early.value === undefined || performance.now() - early.sentAt > EARLY_FRESH_MS) return undefined;
  setTimeout(() => {
    if (window.showerBeerEarly?.[callKey(call)] === early) delete window.showerBeerEarly[callKey(call)];
  }, 0);
  return early.value as T;
}

/** Resolves when every early request has been answered, or after `maxWaitMs`, whichever is first (main.tsx). */
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
