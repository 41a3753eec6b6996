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

let settled: Promise<void> | null = null;

/**
 * Resolves once the app has rendered its first screen, the page has loaded (that screen's
 * photos included) and a frame has been painted since, or after MAX_WAIT_MS: for what the
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
    void Promise.all([firstRender, loaded]).then(() => requestAnimationFrame(() => setTimeout(resolve, 0)));
    setTimeout(resolve, MAX_WAIT_MS);
  });
  return settled;
}
