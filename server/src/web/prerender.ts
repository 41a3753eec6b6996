import { Worker } from 'node:worker_threads';

/** One path's first render as HTML (web/src/prerender/render.tsx), and whether it is the signed-in one. */
export interface Prerendered {
  html: string;
  signedIn: boolean;
}

const isPrerendered = (value: unknown): value is Prerendered =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Prerendered).html === 'string' &&
  typeof (value as Prerendered).signedIn === 'boolean';

/**
 * Runs the web build's prerender (dist/.ssr/prerender.mjs, web/src/prerender/worker.ts) in a
 * worker thread with the run-time config and returns each path's HTML. A worker because the
 * app's modules read sessionStorage and localStorage: the prerender puts in-memory stand-ins
 * on its own thread's global object, never on the server's. Rejects if it fails, answers
 * something else, or takes longer than `timeoutMs`.
 */
export function prerender(entry: string, config: unknown, timeoutMs = 20_000): Promise<Map<string, Prerendered>> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(entry, { workerData: { config } });
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`the prerender took more than ${timeoutMs} ms`));
    }, timeoutMs);
    worker.once('message', (message: unknown) => {
      clearTimeout(timer);
      void worker.terminate();
      const pages = new Map<string, Prerendered>();
      if (typeof message === 'object' && message !== null) {
        for (const [path, page] of Object.entries(message)) if (path.startsWith('/') && isPrerendered(page)) pages.set(path, page);
      }
      if (pages.size === 0) reject(new Error('the prerender answered no page'));
      else resolve(pages);
    });
    worker.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    worker.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the prerender exited (${code}) without an answer`));
    });
  });
}

const attribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * index.html with `page` in #root, in a wrapper that web/index.html's check script reads: it
 * drops the wrapper when the address or the session is not the one rendered (a page the
 * service worker kept for another screen, a signed-in person on the landing page), and
 * `inert` keeps anyone from typing into or clicking what the app's first render replaces.
 */
export function withPrerendered(html: string, path: string, page: Prerendered): string {
  const root = '<div id="root"></div>';
  if (!html.includes(root)) return html;
  const wrapper =
    `<div class="prerendered" data-prerendered data-path="${attribute(path)}" data-session="${page.signedIn ? 'in' : 'out'}" inert>` +
    `${page.html}</div>`;
  return html.replace(root, () => `<div id="root">${wrapper}</div>`);
}
