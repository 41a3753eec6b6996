import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from '@/app/app';
import { loadConfig } from '@/lib/config';
import { consumeRedirectFragment } from '@/lib/session';
import '@/styles/global.css';

// Take the token out of the address bar before anything else runs or renders.
consumeRedirectFragment();

const root = document.getElementById('root')!;

loadConfig()
  .then(() => {
    createRoot(root).render(
      <StrictMode>
        <App />
      </StrictMode>,
    );
  })
  .catch((err: unknown) => {
    console.error(err);
    const p = document.createElement('p');
    p.className = 'boot-error';
    p.textContent = 'Shower Beer could not start: the server did not answer. Please reload the page.';
    root.replaceChildren(p);
  });
