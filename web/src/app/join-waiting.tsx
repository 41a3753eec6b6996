import buttons from '@/components/button.module.css';
import { ShieldIcon } from '@/components/icons';
import page from '@/components/page.module.css';
import status from '@/components/status.module.css';
import { getConfig } from '@/lib/config';
import type { JoinBlock } from '@/lib/join';
import { logout } from '@/lib/session';

/**
 * What an account that cannot use the app yet sees instead of it (approval mode): the server
 * answers every call 403 account_pending until an operator lets it in, or account_rejected.
 * The empty state's look (components/status.tsx), with the screen's one heading.
 */
export function JoinWaiting({ block }: { block: Exclude<JoinBlock, null> }) {
  const name = getConfig().instance?.name ?? 'this server';
  return (
    <main id="main" className={page.page}>
      <div className={status.empty}>
        <span className={status.icon} aria-hidden="true">
          <ShieldIcon size={28} />
        </span>
        <h1 className={status.title}>{block === 'pending' ? 'Your account is waiting for an operator' : 'Your request to join was declined'}</h1>
        <p className={status.text}>
          {block === 'pending'
            ? `An operator of ${name} looks at new accounts before they can join in. Come back later: once they let you in, everything works.`
            : `An operator of ${name} declined your request to join.`}
        </p>
        <button type="button" className={buttons.secondary} onClick={logout}>
          Logout
        </button>
      </div>
    </main>
  );
}
