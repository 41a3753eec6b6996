import { useEffect } from 'react';
import { INACTIVITY_MS, logout } from '@/lib/session';

const EVENTS = ['mousemove', 'keydown', 'scroll', 'click'] as const;

/**
 * Ends the session after 15 minutes without mouse move, key press, scroll or click.
 * Each event only records the time; one timer checks it, so busy mouse moves cost nothing.
 */
export function useInactivityLogout(): void {
  useEffect(() => {
    let last = Date.now();
    let timer: ReturnType<typeof setTimeout>;
    const check = () => {
      const idle = Date.now() - last;
      if (idle >= INACTIVITY_MS) logout();
      else timer = setTimeout(check, INACTIVITY_MS - idle);
    };
    const onActivity = () => {
      last = Date.now();
    };
    timer = setTimeout(check, INACTIVITY_MS);
    for (const e of EVENTS) window.addEventListener(e, onActivity, { capture: true, passive: true });
    return () => {
      clearTimeout(timer);
      for (const e of EVENTS) window.removeEventListener(e, onActivity, { capture: true });
    };
  }, []);
}
