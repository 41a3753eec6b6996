import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { Avatar } from '@/components/avatar';
import buttons from '@/components/button.module.css';
import { ApiError } from '@/lib/api/client';
import { approveFollowRequest, declineFollowRequest, type FollowRequest, getFollowRequests } from '@/lib/api/social';
import { formatTime } from '@/lib/format';
import { setFollowRequests } from '@/lib/unread-notifications';
import { errorText, useSubmit } from '@/lib/use-submit';
import styles from './notifications-page.module.css';

/**
 * People asking to follow the signed-in person's private account (docs/api.md, "Private
 * accounts"), oldest first, each with Approve and Decline. Nothing shows when none wait.
 */
export function FollowRequests({ onWaiting }: { onWaiting?: (count: number) => void } = {}) {
  const [requests, setRequests] = useState<FollowRequest[] | null>(null);
  const answering = useSubmit((err) => window.alert(errorText(err, 'That did not work. Please try again.')));
  const [done, setDone] = useState<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    getFollowRequests(controller.signal)
      .then((list) => {
        setRequests(list);
        setFollowRequests(list.length);
        onWaiting?.(list.length);
      })
      .catch((err: unknown) => {
        if (controller.signal.aborted) return;
        console.error('Failed to load follow requests', err);
        onWaiting?.(0);
      });
    return () => controller.abort();
  }, [onWaiting]);

  async function answer(request: FollowRequest, approve: boolean) {
    await answering.run(async () => {
      try {
        if (approve) await approveFollowRequest(request.username);
        else await declineFollowRequest(request.username);
        setDone(approve ? `${request.username} now follows you.` : `You declined ${request.username}'s request.`);
      } catch (err) {
        // 404: answered elsewhere, or they withdrew it: either way it is no longer waiting.
        if (!(err instanceof ApiError && err.status === 404)) throw err;
      }
      // One answer at a time (busy), so the list is the one shown when it was pressed.
      const left = (requests ?? []).filter((r) => r.username !== request.username);
      setRequests(left);
      setFollowRequests(left.length);
      onWaiting?.(left.length);
    });
  }

  if (!requests || (requests.length === 0 && !done)) return null;
  return (
    <section className={styles.requests} aria-labelledby="follow-requests-heading">
      <h2 id="follow-requests-heading" className={styles.day}>
        Follow requests
      </h2>
      {requests.length > 0 && (
        <ul className={styles.list}>
          {requests.map((r) => (
            <li key={r.username}>
              <article className={`${styles.item} ${styles.request}`}>
                <span className={styles.avatars} aria-hidden="true">
                  <Avatar name={r.username} pictureUrl={r.profilePictureUrl} size={36} decorative />
                </span>
                <p className={styles.text}>
                  <Link to={`/app/profile/${encodeURIComponent(r.username)}`} className={styles.name}>
                    {r.username}
                  </Link>{' '}
                  asked to follow you.
                  <time className={styles.time} dateTime={r.created_at}>
                    {formatTime(new Date(r.created_at))}
                  </time>
                </p>
                <span className={styles.requestButtons}>
                  <button
                    type="button"
                    className={`${buttons.primary} ${buttons.small}`}
                    onClick={() => void answer(r, true)}
                    aria-disabled={answering.busy || undefined}
                    aria-label={`Approve ${r.username}`}
                  >
                    Approve
                  </button>
                  <button
                    type="button"
                    className={`${buttons.secondary} ${buttons.small}`}
                    onClick={() => void answer(r, false)}
                    aria-disabled={answering.busy || undefined}
                    aria-label={`Decline ${r.username}`}
                  >
                    Decline
                  </button>
                </span>
              </article>
            </li>
          ))}
        </ul>
      )}
      {done && (
        <p className={styles.requestDone} role="status">
          {done}
        </p>
      )}
    </section>
  );
}
