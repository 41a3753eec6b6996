import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from '@/app/app';
import { preloadOpenedScreen } from '@/app/router';
import { earlyAnswers } from '@/lib/api/early';
import { inlineConfig, loadConfig } from '@/lib/config';
import { pageSettled } from '@/lib/page-settled';
import { consumeRedirectFragment } from '@/lib/session';
import '@/styles/global.css';

// Take the token out of the address bar before anything else runs or renders.
consumeRedirectFragment();

const root = document.getElementById('root')!;

function render() {
  const reactRoot = createRoot(root);
  // As a transition, the first render is done in slices of a few milliseconds that give the
  // main thread back in between, instead of one long task a phone cannot answer taps during
  // (Lighthouse's total blocking time; docs/performance.md).
  startTransition(() => {
    reactRoot.render(
      <StrictMode>
        <App />
      </StrictMode>,
    );
  });
}

/** How long the first render waits at most for the screen's data once the app's code is here. */
const EARLY_WAIT_MS = 500;

function start() {
  // The opened screen's chunk (index.html names it up front) and the answers to its first API
  // calls (sent by index.html before this code arrived, lib/api/early.ts keeps them) are usually here by now:
  // the first render is then the whole screen, not a Loading placeholder followed a moment
  // later by a second render. If the chunk cannot load, the lazy route shows the error; if
  // the API is slow, the screen renders after EARLY_WAIT_MS and shows Loading until it answers.
  const chunk = preloadOpenedScreen().catch(() => undefined);
  Promise.all([chunk, earlyAnswers(EARLY_WAIT_MS)]).then(render, render);
}

// The server inlines the config into index.html: render at once. The Vite dev server does not: fetch it.
if (inlineConfig()) start();
else
  loadConfig()
    .then(start)
    .catch((err: unknown) => {
      console.error(err);
      const p = document.createElement('p');
      p.className = 'boot-error';
      p.textContent = 'Shower Beer could not start: the server did not answer. Please reload the page.';
      root.replaceChildren(p);
    });

// The app shell's service worker (web/public/sw.js), so the app can be installed; once the first
// screen is up (lib/page-settled.ts), so its install (which fetches the shell's files) never
// competes with it. The load event alone comes too soon now: before the first render, when the
// screen's data and photos are still on their way. Not in development: Vite serves unhashed modules.
if (import.meta.env.PROD && 'serviceWorker' in navigator) {
  void pageSettled().then(() => {
    navigator.serviceWorker.register('/sw.js').catch((err: unknown) => console.error('Service worker not registered', err));
  });
}

