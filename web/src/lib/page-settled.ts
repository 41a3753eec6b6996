/** The longest the secondary requests wait for the screen (a slow photo must not hold the bell back). */
const MAX_WAIT_MS = 3_000;

let rendered: () => void = () => {};
const firstRender = new Promise<void>((resolve) => {
  rendered = resolve;
});

/** Called once the app's first render is on screen (app/app.tsx). */
export function markFirstRender(): void {
  rendered();
}

let painted: Promise<void> | null = null;

/**
 * Resolves once the browser has shown the page's first content (the `first-contentful-paint`
 * entry, which carries the time the frame was presented, not the time the main thread painted
 * it), then after a frame and a task; at once on any later screen of the app; after
 * MAX_WAIT_MS in a tab that never paints (hidden).
 *
 * Why not a requestAnimationFrame alone: with a busy or software compositor, the frame reaches
 * the screen tens of milliseconds after the main thread painted it, and work started in that
 * gap (the next cards of a list, requests the screen does not need) counts against the first
 * paint: Lighthouse's simulation charges every request, and every task that lays out, started
 * before the first paint it observed (docs/performance.md, "After the first paint").
 */
export function afterFirstPaint(): Promise<void> {
  painted ??= new Promise<void>((resolve) => {
    const go = () => requestAnimationFrame(() => setTimeout(resolve, 0));
    const shown = () => performance.getEntriesByName('first-contentful-paint').length > 0;
    if (typeof PerformanceObserver === 'undefined' || !PerformanceObserver.supportedEntryTypes?.includes('paint') || shown()) {
      go();
      return;
    }
    const observer = new PerformanceObserver(() => {
      if (!shown()) return;
      observer.disconnect();
      go();
    });
    observer.observe({ type: 'paint' });
    setTimeout(() => {
      observer.disconnect();
      resolve();
    }, MAX_WAIT_MS);
  });
  return painted;
}

let settled: Promise<void> | null = null;

/**
 * Resolves once the app has rendered its first screen, the page has loaded (that screen's
 * photos included), its first content has been shown (afterFirstPaint) and a frame has been
 * painted since, or after MAX_WAIT_MS: for what the
 * first paint does not need (the nav bar's unread count, the operator's link, the avatar), so
 * those requests do not compete with the screen's own data and photos for a phone's few
 * connections. On a slow network that puts the first photo a round trip or more sooner
 * (docs/performance.md, "Web screens").
 */
export function pageSettled(): Promise<void> {
  settled ??= new Promise<void>((resolve) => {
    const loaded = new Promise<void>((done) => {
      if (document.readyState === 'complete') done();
      else window.addEventListener('load', () => done(), { once: true });
    });
    void Promise.all([firstRender, loaded, afterFirstPaint()]).then(() => requestAnimationFrame(() => setTimeout(resolve, 0)));
    setTimeout(resolve, MAX_WAIT_MS);
  });
  return settled;
}
