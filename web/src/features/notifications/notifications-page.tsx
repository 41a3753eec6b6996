import { memo, useEffect, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { Avatar } from '@/components/avatar';
import { BellIcon } from '@/components/icons';
import { LoadMore } from '@/components/load-more';
import page from '@/components/page.module.css';
import { EmptyState, ErrorMessage, Loading } from '@/components/status';
import { markNotificationsRead, type NotificationGroup, notifications } from '@/lib/api/notifications';
import { formatDay, formatTime } from '@/lib/format';
import { setUnreadNotifications } from '@/lib/unread-notifications';
import { afterFirstPaint } from '@/lib/page-settled';
import { usePagedList } from '@/lib/use-paged-list';
import { useRevealedList } from '@/lib/use-revealed';
import { FollowRequests } from './follow-requests';
import styles from './notifications-page.module.css';

/** "Today", "Yesterday", or the date, for a group's UTC day. */
function dayHeading(day: string): string {
  const today = new Date().toISOString().slice(0, 10);
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  if (day === today) return 'Today';
  if (day === yesterday) return 'Yesterday';
  return formatDay(new Date(`${day}T12:00:00Z`));
}

function Name({ username }: { username: string }) {
  return (
    <Link to={`/app/profile/${encodeURIComponent(username)}`} className={styles.name}>
      {username}
    </Link>
  );
}

/** "bob, dave and 3 others liked your post." */
function Sentence({ group }: { group: NotificationGroup }) {
  const [first, second] = group.actors;
  const others = group.actorCount - (second ? 2 : 1);
  const who = (
    <>
      {first && <Name username={first.username} />}
      {second && (others > 0 ? ', ' : ' and ')}
      {second && <Name username={second.username} />}
      {others > 0 && ` and ${others} ${others === 1 ? 'other' : 'others'}`}
    </>
  );
  if (group.kind === 'follow') return <>{who} started following you.</>;
  if (group.kind === 'followAccepted') return <>{who} accepted your follow {group.actorCount > 1 ? 'requests' : 'request'}.</>;
  if (group.kind === 'like') return <>{who} liked your post.</>;
  // A mention by an anonymous post's author comes without actors: the server names nobody (issue 47).
  if (group.kind === 'mention') return <>{first ? who : 'Someone'} mentioned you in a post.</>;
  if (group.kind === 'commentMention') {
    return (
      <>
        {first ? who : 'Someone'} mentioned you in a comment
        {group.excerpt ? `: “${group.excerpt}”` : '.'}
      </>
    );
  }
  const times = group.count > group.actorCount ? ` (${group.count} comments)` : '';
  return (
    <>
      {who} commented on your post{times}
      {group.excerpt ? `: “${group.excerpt}”` : '.'}
    </>
  );
}

/**
 * One entry, under its day's heading when it is the day's first. Memoised: the list is revealed
 * six entries at a time (lib/use-revealed.ts), and each step renders only the new ones.
 */
const Entry = memo(function Entry({ group: g, heading }: { group: NotificationGroup; heading: string | null }) {
  return (
    <li className={styles.entry}>
      {heading && <h2 className={styles.day}>{heading}</h2>}
      <article className={`${styles.item} ${g.unread ? styles.unread : ''}`}>
        <span className={styles.avatars} aria-hidden="true">
          {g.actors.slice(0, 2).map((a) => (
            <Avatar key={a.username} name={a.username} pictureUrl={a.profilePictureUrl} size={36} decorative />
          ))}
        </span>
        <p className={styles.text}>
          <Sentence group={g} />
          {g.unread && <span className="visually-hidden"> (new)</span>}
          <time className={styles.time} dateTime={g.latestAt}>
            {formatTime(new Date(g.latestAt))}
          </time>
        </p>
        {g.post && (g.kind === 'mention' || g.kind === 'commentMention') && (
          // Someone else's post, perhaps anonymous: its photo, with no link that would say whose it is.
          <span className={styles.thumbLink}>
            <img src={g.post.thumbnailUrl} alt="" width={48} height={48} loading="lazy" decoding="async" />
          </span>
        )}
        {g.post && g.kind !== 'mention' && g.kind !== 'commentMention' && (
          <Link to="/app/account" className={styles.thumbLink} aria-label="Your post, on your profile">
            <img src={g.post.thumbnailUrl} alt="" width={48} height={48} loading="lazy" decoding="async" />
          </Link>
        )}
      </article>
    </li>
  );
});

/** `/app/notifications`: likes, comments and follows, grouped per post and day, newest first; seen ones are marked read. */
export function NotificationsPage() {
  const list = usePagedList(notifications);
  // Six entries fill a phone's screen: they render first, the rest after (lib/use-revealed.ts).
  const entries = useRevealedList(list, 6, 6);
  const markedUpTo = useRef(0);
  // Follow requests waiting above the list: then "No notifications yet" would contradict them.
  // Null until they are known, so the empty state does not show for a moment and then go.
  const [waiting, setWaiting] = useState<number | null>(null);

  // What is on screen has been seen: mark read up to the newest shown, once per newer arrival.
  const newest = list.items[0]?.latestTime ?? 0;
  useEffect(() => {
    if (newest <= markedUpTo.current) return;
    markedUpTo.current = newest;
    // Once the screen is shown (lib/page-settled.ts): the request is not part of its first paint.
    void afterFirstPaint()
      .then(() => markNotificationsRead(newest))
      .then((r) => setUnreadNotifications(r.unread))
      .catch((err: unknown) => console.error('Marking notifications read failed', err));
  }, [newest]);

  let lastDay = '';
  return (
    <div className={page.page}>
      <h1 className={page.title}>Notifications</h1>
      <FollowRequests onWaiting={setWaiting} />
      {list.items.length === 0 && list.error && <ErrorMessage text="We couldn't load your notifications." onRetry={list.retry} />}
      {list.items.length === 0 && !list.error && !list.done && <Loading />}
      {list.items.length === 0 && list.done && waiting !== null && waiting > 0 && (
        <p className={styles.nothingElse}>Nothing else yet: likes, comments, mentions and new followers show here.</p>
      )}
      {list.items.length === 0 && list.done && waiting === 0 && (
        <EmptyState
          icon={<BellIcon size={28} />}
          title="No notifications yet"
          text="When someone likes or comments on your posts, follows you or accepts your follow request, you'll see it here."
        />
      )}
      {list.items.length > 0 && (
        <ol className={styles.list} aria-label="Notifications, newest first">
          {entries.shown.map((g) => {
            const day = dayHeading(g.day);
            const heading = day !== lastDay ? day : null;
            lastDay = day;
            return <Entry key={g.groupId} group={g} heading={heading} />;
          })}
        </ol>
      )}
      {entries.tail && (
        <>
          {list.items.length > 0 && list.error && <ErrorMessage text="We couldn't load more." onRetry={list.retry} />}
          {list.items.length > 0 && list.loading && <Loading />}
          <LoadMore list={list} what="notifications" />
        </>
      )}
    </div>
  );
}
