import { startTransition, useCallback, useEffect, useRef, useState } from 'react';

export interface PagedList<T> {
  items: T[];
  setItems: React.Dispatch<React.SetStateAction<T[]>>;
  loading: boolean;
  error: boolean;
  done: boolean;
  /** How many pages have arrived since the list (re)started. */
  pages: number;
  /** Attach to an element at the end of the list: when it scrolls into view the next page loads. */
  sentinelRef: (el: Element | null) => void;
  /** Loads the next page now (the "Load more" button: keyboard and screen-reader users do not scroll to a sentinel). */
  loadMore: () => void;
  retry: () => void;
}

/** Where a list's pages come from (a lib/api/client.ts PagedCall, or one that picks the items out of each answer). */
export interface PageSource<T> {
  limit: number;
  page(cursor: string | undefined, signal: AbortSignal): Promise<T[]>;
  /**
   * The first page, when index.html's early request has already brought it (lib/api/early.ts): the
   * list starts with it instead of asking for it, so the screen's first render shows it. Asked
   * on mount only; a change of `key` starts over from the server.
   */
  early?(): T[] | undefined;
}

/**
 * Cursor pagination driven by an IntersectionObserver on a sentinel element, or by
 * loadMore (components/load-more.tsx puts both at the end of a list): one request per
 * page, the next page asks for ?cursor= of the last item, and a page shorter than the
 * limit is the end.
 */
export function usePagedList<T extends { cursor: string }>(
  source: PageSource<T>,
  /** Changing this starts over from the first page. */
  key: string = '',
): PagedList<T> {
  const { limit } = source;
  const [firstPage] = useState(() => source.early?.());
  const seeded = useRef(firstPage !== undefined);
  const [items, setItems] = useState<T[]>(() => firstPage ?? []);
  const [loading, setLoading] = useState(!seeded.current);
  const [error, setError] = useState(false);
  const [done, setDone] = useState(() => firstPage !== undefined && firstPage.length < limit);
  const [pages, setPages] = useState(() => (firstPage === undefined ? 0 : 1));
  const busy = useRef(false);
  const cursorRef = useRef<string | undefined>(firstPage?.[firstPage.length - 1]?.cursor);
  const doneRef = useRef(done);
  const fetchRef = useRef(source);
  fetchRef.current = source;
  const abortRef = useRef<AbortController | null>(null);
  const visibleRef = useRef(false);

  const loadNext = useCallback(() => {
    if (busy.current || doneRef.current) return;
    busy.current = true;
    setLoading(true);
    setError(false);
    const ac = new AbortController();
    abortRef.current = ac;
    fetchRef.current
      .page(cursorRef.current, ac.signal)
      .then((page) => {
        if (ac.signal.aborted) return;
        const last = page[page.length - 1];
        if (last) cursorRef.current = last.cursor;
        if (page.length < limit) doneRef.current = true;
        // A page of cards is rendered in slices that give the main thread back in between
        // (a transition), so taps and scrolling are answered while it renders.
        startTransition(() => {
          if (doneRef.current) setDone(true);
          setItems((prev) => (prev.length === 0 ? page : [...prev, ...page]));
          setPages((n) => n + 1);
          setLoading(false);
        });
        busy.current = false;
        // The sentinel may still be on screen (short pages on a tall window): keep going.
        if (visibleRef.current && !doneRef.current) queueMicrotask(loadNext);
      })
      .catch((err: unknown) => {
        if (ac.signal.aborted) return;
        console.error('Failed to load posts', err);
        busy.current = false;
        setLoading(false);
        setError(true);
      });
  }, [limit]);

  useEffect(() => {
    // Mounted with the first page already in hand: nothing to ask for until the sentinel shows.
    if (seeded.current) {
      seeded.current = false;
      return () => abortRef.current?.abort();
    }
    cursorRef.current = undefined;
    doneRef.current = false;
    busy.current = false;
    setItems([]);
    setDone(false);
    setPages(0);
    loadNext();
    return () => abortRef.current?.abort();
  }, [key, loadNext]);

  const observerRef = useRef<IntersectionObserver | null>(null);
  const sentinelRef = useCallback(
    (el: Element | null) => {
      observerRef.current?.disconnect();
      observerRef.current = null;
      if (!el) return;
      const observer = new IntersectionObserver(
        (entries) => {
          visibleRef.current = entries.some((e) => e.isIntersecting);
          if (visibleRef.current) loadNext();
        },
        { rootMargin: '600px 0px' },
      );
      observer.observe(el);
      observerRef.current = observer;
    },
    [loadNext],
  );

  const retry = useCallback(() => loadNext(), [loadNext]);

  return { items, setItems, loading, error, done, pages, sentinelRef, loadMore: retry, retry };
}
