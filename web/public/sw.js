// The app shell's service worker, so Shower Beer can be added to a phone's home screen and
// opens without a network. Registered by web/src/main.tsx in production builds only.
//
// It keeps the page itself (index.html as the server answers / and /app/*), the hashed build
// files under /assets/ and the icons: nothing else. API answers, /config.json, photos (/media),
// uploads, the sign-in provider's pages, other origins and anything asked for with an
// Authorization header are never looked at: the browser fetches them as if there were no worker.
//
// Pages are network-first, so a deploy, a sign-in or a sign-out is seen at once: the kept copy
// only answers when the network fails. /assets/* are cache-first: their names change with their
// content. VERSION is stamped at build time from the build's files (web/vite.config.ts), so each
// deploy installs a new worker, which deletes the caches of the one before when it takes over.
const VERSION = 'dev';
const CACHE = `shower-beer-${VERSION}`;
/** Where the kept copy of the page lives (the same page answers every /app/* path). */
const SHELL = '/';
// Not the manifest: the server writes the server's name into it (server/src/web/plugin.ts), so it is
// asked for like any other request and a new name shows without a new deploy.
const ICONS = [
  '/beer-mug.svg',
  '/icons/icon-192.png',
  '/icons/icon-512.png',
  '/icons/maskable-512.png',
  '/icons/apple-touch-icon.png',
];
/** The paths the app's page answers (server/src/web/plugin.ts): stamped by the build from the screen table (web/src/app/screens.ts, APP_PAGE_SOURCE). */
const APP_PAGE = /^\/(app(\/.*)?)?$/;

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // The page and the build files it names, so the app opens offline once installed.
      // One missing file is no reason to go without a worker: each is kept if it can be.
      const page = await fetch(SHELL, { cache: 'no-cache' }).catch(() => null);
      const files = [...ICONS];
      if (page && page.ok) {
        const html = await page.clone().text();
        await cache.put(SHELL, page);
        for (const match of html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)) files.push(match[1]);
      }
      await Promise.allSettled([...new Set(files)].map((file) => cache.add(file)));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) {
        if (key.startsWith('shower-beer-') && key !== CACHE) await caches.delete(key);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET' || request.headers.has('authorization')) return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    if (APP_PAGE.test(url.pathname)) event.respondWith(appPage(event));
  } else if (url.pathname.startsWith('/assets/')) {
    event.respondWith(buildFile(event));
  } else if (ICONS.includes(url.pathname)) {
    event.respondWith(buildFile(event));
  }
});

/**
 * Network first; the kept page when the network fails. (No navigation preload: for the
 * provider's pages, which this worker leaves alone, it could send a second request.)
 */
async function appPage(event) {
  try {
    const response = await fetch(event.request);
    if (response.ok && response.type === 'basic' && !response.redirected) {
      const copy = response.clone();
      event.waitUntil(caches.open(CACHE).then((cache) => cache.put(SHELL, copy)));
    }
    return response;
  } catch {
    return (await caches.match(SHELL, { cacheName: CACHE })) || Response.error();
  }
}

/** Cache first: a build file's name changes with its content (the icons with the worker's VERSION). */
async function buildFile(event) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(event.request);
  if (kept) return kept;
  const response = await fetch(event.request);
  if (response.ok && response.type === 'basic') {
    const copy = response.clone();
    event.waitUntil(cache.put(event.request, copy));
  }
  return response;
}
