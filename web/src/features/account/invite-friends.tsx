import { useEffect, useState } from 'react';
import { InviteLinks } from '@/components/invite-links';
import { getInstance } from '@/lib/api/registration';
import styles from './account-page.module.css';

/**
 * "Invite friends" on the own profile, while the operator lets members invite (docs/registration.md).
 * Operators make theirs on the operator page, where they see everyone's.
 */
export function InviteFriends() {
  const [allowed, setAllowed] = useState(false);
  useEffect(() => {
    const ac = new AbortController();
    getInstance(ac.signal)
      .then((instance) => setAllowed(instance.membersCanInvite && instance.registrationMode !== 'closed'))
      .catch(() => setAllowed(false));
    return () => ac.abort();
  }, []);
  if (!allowed) return null;
  return (
    <details className={styles.panel}>
      <summary>Invite friends</summary>
      <InviteLinks />
    </details>
  );
}
