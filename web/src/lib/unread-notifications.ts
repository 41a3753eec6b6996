import { useEffect, useSyncExternalStore } from 'react';
import { getUnreadNotifications } from '@/lib/api/notifications';
import { pageSettled } from '@/lib/page-settled';

/**
 * The bell's unread count, shared by the nav bar and the Notifications screen. While
 * the app is open it asks the server at most once every 30 s, and only while the tab
 * is visible (GET /api/notifications/unread reads one row).
 */
const POLL_MS = 30_000;

let unread = 0;
/** Follow requests waiting for a private account's answer: the bell counts them too (docs/api.md, "Private accounts"). */
let requests = 0;
let lastAsked = 0;
const listeners = new Set<() => void>();

function publish(n: number, waiting = requests) {
  if (n === unread && waiting === requests) return;
  unread = n;
  requests = waiting;
  for (const l of listeners) l();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Sets the count from an answer that carries it (marking read answers what stays unread). */
export const setUnreadNotifications = (n: number) => publish(n);
/** Sets how many follow requests wait (the Notifications screen's list, after each answer). */
export const setFollowRequests = (n: number) => publish(unread, n);

async function refresh(signal?: AbortSignal) {
  lastAsked = Date.now();
  try {
    const answer = await getUnreadNotifications(signal);
    publish(answer.unread, answer.followRequests);
  } catch {
    // Offline or signed out: the next poll tries again.
  }
}

/** The current count, kept fresh while mounted (the nav bar mounts it once). */
export function useUnreadNotifications(poll = false): number {
  useEffect(() => {
    if (!poll) return;
    const ac = new AbortController();
    const due = () => !document.hidden && Date.now() - lastAsked >= POLL_MS;
    // The first count once the screen itself has loaded (lib/page-settled.ts).
    void pageSettled().then(() => {
      if (!ac.signal.aborted) void refresh(ac.signal);
    });
    const timer = window.setInterval(() => due() && void refresh(ac.signal), POLL_MS);
    const onVisible = () => due() && void refresh(ac.signal);
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      ac.abort();
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [poll]);
  // The server's prerender (prerender/render.tsx) sees the count before any answer: 0.
  return useSyncExternalStore(subscribe, () => unread + requests, () => unread + requests);
}
