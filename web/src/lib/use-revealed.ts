import { startTransition, useEffect, useState } from 'react';
import { afterFirstPaint } from '@/lib/page-settled';

/**
 * How many of a list's items to render now: `first` at once, then `step` more in each later
 * task until all are shown (a page that arrives later is revealed the same way).
 *
 * Why: a screen's first paint should not wait for cards nobody can see yet. Ten feed cards
 * rendered, committed and laid out together were one 50–80 ms task on the machines measured
 * here (docs/performance.md), during which a tap is not answered, and the photos of cards
 * far below the fold were fetched before the first one was painted. A few cards at a time
 * keep every task short, and the first photo is painted before the others are asked for.
 * Whatever follows the list (the "Load more" button, the end text) should wait until
 * `revealed >= total`, so nothing on screen moves down as cards are added above it.
 */
export function useRevealed(total: number, first: number, step: number): number {
  const [shown, setShown] = useState(first);
  useEffect(() => {
    if (shown >= total) return;
    // A task of its own, after this commit; on the page's first screen, only once its first
    // content is on screen (lib/page-settled.ts), so the first paint waits for none of the rest.
    let timer: ReturnType<typeof setTimeout> | undefined;
    let cancelled = false;
    void afterFirstPaint().then(() => {
      if (!cancelled) timer = setTimeout(() => startTransition(() => setShown((n) => n + step)), 0);
    });
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [shown, total, step]);
  return Math.min(shown, total);
}

/**
 * useRevealed over a paged list: the items to render now, and whether what follows the list
 * (Loading, "Load more", the end text) may show yet. It waits while the first page's items are
 * still being added, so nothing on screen is pushed down; from the second page on it stays,
 * keeping the focus of whoever pressed "Load more".
 */
export function useRevealedList<T>(list: { items: T[]; pages: number }, first: number, step: number): { shown: T[]; tail: boolean } {
  const revealed = useRevealed(list.items.length, first, step);
  const all = revealed >= list.items.length;
  return { shown: all ? list.items : list.items.slice(0, revealed), tail: all || list.pages > 1 };
}
