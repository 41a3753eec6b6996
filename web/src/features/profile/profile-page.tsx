import { memo, useCallback, useEffect, useMemo, useState } from 'react';
import { Link, Navigate, useParams } from 'react-router-dom';
import { Avatar } from '@/components/avatar';
import buttons from '@/components/button.module.css';
import { CameraIcon, LockIcon } from '@/components/icons';
import page from '@/components/page.module.css';
import { PostDialog } from '@/components/post-dialog';
import { ProfileStats } from '@/components/profile-stats';
import { GridTail, PostGrid, ProfilePending } from '@/components/post-grid';
import { EmptyState } from '@/components/status';
import { ApiError } from '@/lib/api/client';
import { userProfile, type ViewedUser } from '@/lib/api/feeds';
import { block, unblock } from '@/lib/api/moderation';
import { getServerMutes, muteServer, unmuteServer } from '@/lib/api/server-mutes';
import type { Post } from '@/lib/api/posts';
import { follow, unfollow } from '@/lib/api/social';
import { GRID_FIRST_ROW } from '@/lib/first-requests';
import { useMe } from '@/lib/me-context';
import { usePagedList } from '@/lib/use-paged-list';
import { useRevealedList } from '@/lib/use-revealed';
import { errorText, useSubmit } from '@/lib/use-submit';
import styles from './profile-page.module.css';

type Summary = Omit<ViewedUser, 'posts'>;

/** `/app/profile/:username`: someone else's profile, with Follow (a toggle) and Block. */
export function ProfilePage() {
  const { username = '' } = useParams();
  const { me } = useMe();
  if (me?.username && me.username === username) return <Navigate to="/app/account" replace />;
  return <OtherProfile key={username} username={username} />;
}

/** The profile's answer without its posts. */
function summaryOf(user: ViewedUser): Summary {
  const { posts: _posts, ...rest } = user;
  return rest;
}

// Memoised: ProfilePage renders again when the signed-in user's details arrive (the navigation
// bar asks for them after the first paint); the profile shown has not changed.
const OtherProfile = memo(function OtherProfile({ username }: { username: string }) {
  const profile = useMemo(() => userProfile(username), [username]);
  // The first page, if index.html has already brought it (lib/api/early.ts): then it is the first render.
  const [early] = useState(() => profile.early());
  const [summary, setSummary] = useState<Summary | null>(() => (early ? summaryOf(early) : null));
  const [notFound, setNotFound] = useState(false);
  const [open, setOpen] = useState<Post | null>(null);
  const following = useSubmit((err) => {
    console.error(err);
    // 409: we were out of step with the server: load the profile again to learn where it stands.
    if (err instanceof ApiError && err.status === 409) setVersion((v) => v + 1);
  });
  const blocking = useSubmit((err) => window.alert(errorText(err, 'That did not work. Please try again.')));
  // Bumped by Unblock: the posts load again from the first page.
  const [version, setVersion] = useState(0);
  // Someone of another server: whether the viewer muted it (their own list; null until known).
  const host = remoteHost(username);
  const [hostMuted, setHostMuted] = useState<boolean | null>(null);
  const muting = useSubmit((err) => window.alert(errorText(err, 'That did not work. Please try again.')));
  useEffect(() => {
    if (!host) return;
    getServerMutes()
      .then((r) => setHostMuted(r.mutes.some((m) => m.host === host.toLowerCase())))
      .catch((err: unknown) => console.error('Failed to load muted servers', err));
  }, [host]);

  const fetchPage = useCallback(
    async (cursor: string | undefined, signal: AbortSignal) => {
      try {
        const res = await profile.page(cursor, signal);
        if (!cursor) setSummary(summaryOf(res));
        return res.posts;
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) setNotFound(true);
        throw err;
      }
    },
    [profile],
  );
  const list = usePagedList({ limit: profile.limit, page: fetchPage, early: () => early?.posts }, `${username}#${version}`);
  // The first row of thumbnails (preloaded by index.html, lib/first-requests.ts) renders alone, so it
  // is drawn before the others are asked for; the rest follow two rows at a time (lib/use-revealed.ts).
  const grid = useRevealedList(list, GRID_FIRST_ROW, 2 * GRID_FIRST_ROW);

  async function toggleFollow() {
    // Not `disabled` while busy: that would drop keyboard focus from the button.
    if (!summary) return;
    await following.run(async () => {
      // "Requested" cancels the waiting request as "Unfollow" ends a follow.
      const res = summary.isFollowing || summary.isRequested ? await unfollow(username) : await follow(username);
      setSummary({ ...summary, isFollowing: res.following, isRequested: res.requested, followerCount: res.followerCount });
      // A private account's posts go with the follow (docs/api.md, "Private accounts").
      if (summary.isPrivate && !res.following) list.setItems([]);
    });
  }

  async function toggleBlock() {
    if (!summary || blocking.busy) return;
    if (
      !summary.isBlocked &&
      !window.confirm(
        `Block ${username}? You will not see each other's posts or comments (anonymous posts stay as they are, so they never tell whose they are), neither can follow, like or comment on the other's posts, and any follow between you ends.`,
      )
    )
      return;
    await blocking.run(async () => {
      if (summary.isBlocked) {
        await unblock(username);
        setSummary({ ...summary, isBlocked: false });
        setVersion((v) => v + 1);
      } else {
        await block(username);
        const wasFollowing = summary.isFollowing;
        setSummary({
          ...summary,
          isBlocked: true,
          isFollowing: false,
          isRequested: false,
          followerCount: Math.max(0, summary.followerCount - (wasFollowing ? 1 : 0)),
        });
        list.setItems([]);
      }
    });
  }

  async function toggleMute() {
    if (!host || hostMuted === null || muting.busy) return;
    if (
      !hostMuted &&
      !window.confirm(
        `Mute ${host}? Posts, comments and notifications from everyone on ${host} leave your feeds, tag pages, search and notifications. Nothing is sent to ${host}, your follows stay, and you can unmute it here or under Muted servers on your profile.`,
      )
    )
      return;
    await muting.run(async () => {
      if (hostMuted) await unmuteServer(host);
      else await muteServer(host);
      setHostMuted(!hostMuted);
    });
  }

  if (notFound) {
    return (
      <div className={page.page}>
        <EmptyState title="User not found" text={`Nobody here goes by “${username}”.`}>
          <Link to="/app/search-profile" className={buttons.secondary}>
            Search profiles
          </Link>
        </EmptyState>
      </div>
    );
  }
  if (!summary) return <ProfilePending failed={list.error} errorText="We couldn't load this profile." onRetry={list.retry} />;

  const name = summary.username || 'Beer Enthusiast';
  return (
    <div className={page.page}>
      <section className={styles.profile} aria-label={`${name}'s profile`}>
        <Avatar name={name} pictureUrl={summary.profilePictureUrl} size={88} fallbackMug />
        <div className={styles.info}>
          <h1 className={styles.name}>{name}</h1>
          {/* Someone of another server (name@host, issue 49): where their account lives. */}
          {remoteHost(name) && <p className={styles.host}>On {remoteHost(name)}</p>}
          <ProfileStats
            className={styles.stats}
            figures={[
              [summary.postCount === 1 ? 'Post' : 'Posts', summary.postCount],
              [summary.followerCount === 1 ? 'Follower' : 'Followers', summary.followerCount],
              ['Following', summary.followingCount],
            ]}
          />
          <div className={styles.buttons}>
            {!summary.isBlocked && (
              // The spec's toggle: "Follow" becomes "Unfollow" after the call. The label says what a
              // press does, so the button carries no aria-pressed ("Unfollow, pressed" would be wrong).
              // A private account's "Follow" becomes "Requested" until it answers; pressing it cancels.
              <button
                type="button"
                className={`${summary.isFollowing || summary.isRequested ? buttons.secondary : buttons.primary} ${styles.follow}`}
                onClick={toggleFollow}
                aria-disabled={following.busy || undefined}
                aria-label={summary.isRequested ? `Requested: cancel your request to follow ${name}` : undefined}
              >
                {summary.isFollowing ? 'Unfollow' : summary.isRequested ? 'Requested' : 'Follow'}
              </button>
            )}
            <button type="button" className={`${buttons.danger} ${styles.blockButton}`} onClick={toggleBlock} disabled={blocking.busy}>
              {summary.isBlocked ? 'Unblock' : 'Block'}
            </button>
            {host && hostMuted !== null && (
              <button type="button" className={`${buttons.secondary} ${styles.muteButton}`} onClick={toggleMute} disabled={muting.busy}>
                {hostMuted ? `Unmute ${host}` : `Mute ${host}`}
              </button>
            )}
          </div>
          {hostMuted && (
            <p className={styles.host} role="status">
              You muted {host}: its posts, comments and notifications are hidden from you.
            </p>
          )}
        </div>
      </section>

      <section aria-labelledby="posts-heading">
        <h2 id="posts-heading" className={page.sectionTitle}>
          POSTS
        </h2>
        {summary.isBlocked ? (
          <EmptyState
            title={`You blocked ${name}`}
            text="You don't see each other's named posts or comments. Unblock to see their posts again."
          />
        ) : summary.isPrivate && !summary.isFollowing ? (
          <EmptyState
            icon={<LockIcon size={28} />}
            title="This account is private"
            text={summary.isRequested ? `${name} will see your request. Once they approve it, their posts show here.` : `Follow ${name} to see their shower beer moments.`}
          />
        ) : list.items.length === 0 && list.done ? (
          <EmptyState icon={<CameraIcon size={28} />} title="No posts yet" text="This user hasn't shared any shower beer moments yet." />
        ) : (
          <PostGrid posts={grid.shown} onOpen={setOpen} />
        )}
        {grid.tail && <GridTail list={list} />}
      </section>

      {open && (
        <PostDialog
          post={open}
          onClose={() => setOpen(null)}
          onChange={(p) => {
            list.setItems((items) => items.map((x) => (x.postid === p.postid ? p : x)));
            setOpen(p);
          }}
          onDelete={(id) => list.setItems((items) => items.filter((x) => x.postid !== id))}
        />
      )}
    </div>
  );
});

/** The host of a person of another server (their name is name@host); null for someone of this server. */
function remoteHost(username: string): string | null {
  const at = username.indexOf('@');
  return at > 0 ? username.slice(at + 1) : null;
}
