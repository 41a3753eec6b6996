import { useEffect, useRef } from 'react';
import buttons from '@/components/button.module.css';
import page from '@/components/page.module.css';
import type { PagedList } from '@/lib/use-paged-list';

interface LoadMoreProps {
  list: Pick<PagedList<unknown>, 'items' | 'loading' | 'error' | 'done' | 'pages' | 'sentinelRef' | 'loadMore'>;
  /** What the list holds, for the button: "Load more posts". */
  what: string;
  /** Said under the list once everything has arrived (by default only after more than one page). */
  endText?: string;
  alwaysShowEnd?: boolean;
}

/**
 * The end of an infinitely scrolling list. The next page loads when this scrolls near the
 * screen (the IntersectionObserver of use-paged-list.ts), and the "Load more" button does the
 * same for keyboard and screen-reader users, who do not scroll to get there. When the last
 * page arrives the button goes; if it had focus, focus moves to the end text so it is not lost.
 */
export function LoadMore({ list, what, endText = `That's all the ${what}.`, alwaysShowEnd = false }: LoadMoreProps) {
  const endRef = useRef<HTMLParagraphElement>(null);
  const pressed = useRef(false);

  // The page the button asked for has arrived. If it was the last, the button is gone: focus goes to the text that replaced it.
  useEffect(() => {
    if (!pressed.current) return;
    pressed.current = false;
    if (list.done && (document.activeElement === document.body || document.activeElement === null)) endRef.current?.focus();
  }, [list.done, list.pages]);

  if (list.items.length === 0) return null;
  if (list.done) {
    return alwaysShowEnd || list.pages > 1 ? (
      <p ref={endRef} className={page.end} tabIndex={-1}>
        {endText}
      </p>
    ) : null;
  }
  if (list.error) return null;
  return (
    <div ref={list.sentinelRef} className={page.more}>
      <button
        type="button"
        className={buttons.secondary}
        aria-disabled={list.loading || undefined}
        onClick={() => {
          if (list.loading) return;
          pressed.current = true;
          list.loadMore();
        }}
      >
        Load more {what}
      </button>
    </div>
  );
}
