import { useEffect } from 'react';
import { BrowserRouter } from 'react-router-dom';
import { RouteTitle } from '@/app/route-title';
import { AppRoutes, routes } from '@/app/router';
import { MeProvider } from '@/lib/me-context';
import { markFirstRender } from '@/lib/page-settled';

export function App() {
  // After the first commit: what waits for the first screen (lib/page-settled.ts) may go.
  useEffect(markFirstRender, []);
  return (
    <MeProvider>
      <BrowserRouter>
        <RouteTitle routes={routes} />
        <AppRoutes />
      </BrowserRouter>
    </MeProvider>
  );
}
