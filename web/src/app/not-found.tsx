import { Link } from 'react-router-dom';
import { EmptyState } from '@/components/status';
import buttons from '@/components/button.module.css';
import page from '@/components/page.module.css';

/** A friendly page for addresses the app does not know. */
export function NotFound({ standalone = false }: { standalone?: boolean }) {
  return (
    <div className={page.page}>
      <EmptyState title="Page not found" text="This page went down the drain. Let's get you back to the good stuff.">
        <Link to={standalone ? '/' : '/app/discover'} className={buttons.primary}>
          {standalone ? 'Go to the start page' : 'Back to Discover'}
        </Link>
      </EmptyState>
    </div>
  );
}
