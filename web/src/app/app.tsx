import { RouterProvider } from 'react-router-dom';
import { router } from '@/app/router';
import { MeProvider } from '@/lib/me-context';

export function App() {
  return (
    <MeProvider>
      <RouterProvider router={router} />
    </MeProvider>
  );
}
