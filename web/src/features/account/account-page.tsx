import { useCallback, useEffect, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { Avatar } from '@/components/avatar';
import buttons from '@/components/button.module.css';
import { CameraIcon } from '@/components/icons';
import page from '@/components/page.module.css';
import { PostDialog } from '@/components/post-dialog';
import { ProfileStats } from '@/components/profile-stats';
import { GridTail, PostGrid, ProfilePending } from '@/components/post-grid';
import { EmptyState } from '@/components/status';
import { ownProfile, type UserPosts } from '@/lib/api/feeds';
import { changeProfilePicture, fetchUserInfo, syncUser, type UserInfo } from '@/lib/api/people';
import type { Post } from '@/lib/api/posts';
import { getConfig } from '@/lib/config';
import { GRID_FIRST_ROW } from '@/lib/first-requests';
import { ownDisplayName } from '@/lib/format';
import { useUpdateMe } from '@/lib/me-context';
import { logout } from '@/lib/session';
import { usePagedList } from '@/lib/use-paged-list';
import { useRevealedList } from '@/lib/use-revealed';
import styles from './account-page.module.css';
import { BlockedPeople } from './blocked-people';
import { ChangePassword } from './change-password';
import { DeleteAccount } from './delete-account';
import { DownloadData } from './download-data';
import { MutedServers } from './muted-servers';
import { InviteFriends } from './invite-friends';
import { ModerationNotices } from './moderation-notices';
import { PrivateAccount } from './private-account';
import { SensitivePhotos } from './sensitive-photos';
import { StorageUse } from './storage-use';

type Summary = Omit<UserPosts, 'posts'>;

/** The own profile's answer without its posts. */
function summaryOf(profile: UserPosts): Summary {
  const { posts: _posts, ...rest } = profile;
  return rest;
}

/** `/app/account` (and `/app/account/:username`): the signed-in user's own profile. */
export function AccountPage() {
  const updateMe = useUpdateMe();
  // The first page, if index.html has already brought it (lib/api/early.ts): then it is the first render.
  const [early] = useState(() => ownProfile.early());
  const [summary, setSummary] = useState<Summary | null>(() => (early ? summaryOf(early) : null));
  const [info, setInfo] = useState<UserInfo | null>(null);
  const [open, setOpen] = useState<Post | null>(null);
  const [photoProgress, setPhotoProgress] = useState<number | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const synced = useRef(false);

  /** The own profile has loaded: the nav's avatar and name, and the spec's sync call (once). */
  const loaded = useCallback(
    (profile: Summary) => {
      updateMe({ username: profile.username, email: profile.email, profilePictureUrl: profile.profilePictureUrl });
      if (!synced.current) {
        synced.current = true;
        syncUser().catch((err: unknown) => console.error('sync-users failed', err));
      }
    },
    [updateMe],
  );

  const fetchPage = useCallback(
    async (cursor: string | undefined, signal: AbortSignal) => {
      const res = await ownProfile.page(cursor, signal);
      if (!cursor) {
        const profile = summaryOf(res);
        setSummary(profile);
        loaded(profile);
      }
      return res.posts;
    },
    [loaded],
  );
  const list = usePagedList({ limit: ownProfile.limit, page: fetchPage, early: () => early?.posts });
  // The first row of thumbnails (preloaded by index.html, lib/first-requests.ts) renders alone, so it
  // is drawn before the others are asked for; the rest follow two rows at a time (lib/use-revealed.ts).
  const grid = useRevealedList(list, GRID_FIRST_ROW, 2 * GRID_FIRST_ROW);

  // Opened with the first page already here (lib/api/early.ts): it loaded before the first render.
  const [openedWith] = useState(summary);
  useEffect(() => {
    if (openedWith) loaded(openedWith);
  }, [openedWith, loaded]);

  useEffect(() => {
    fetchUserInfo()
      .then(setInfo)
      .catch((err: unknown) => console.error('Failed to load user info', err));
  }, []);

  const username = info?.username ?? summary?.username ?? null;
  const email = info?.email ?? summary?.email ?? null;
  const name = ownDisplayName(username, email);

  function applyChange(updated: Post) {
    const before = list.items.find((p) => p.postid === updated.postid);
    list.setItems((items) => items.map((p) => (p.postid === updated.postid ? updated : p)));
    setOpen(updated);
    if (before && summary) {
      setSummary({
        ...summary,
        totalLikes: summary.totalLikes + updated.likeCount - before.likeCount,
        totalComments: summary.totalComments + updated.commentCount - before.commentCount,
      });
    }
  }

  function applyDelete(postId: number) {
    const gone = list.items.find((p) => p.postid === postId);
    list.setItems((items) => items.filter((p) => p.postid !== postId));
    if (gone && summary) {
      setSummary({
        ...summary,
        postCount: Math.max(0, summary.postCount - 1),
        totalLikes: Math.max(0, summary.totalLikes - gone.likeCount),
        totalComments: Math.max(0, summary.totalComments - gone.commentCount),
      });
    }
  }

  async function onPhotoChosen(e: React.ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    if (file.size > getConfig().limits.maxUploadBytes) {
      window.alert('File is too large! Max 5MB.');
      return;
    }
    setPhotoProgress(0);
    try {
      const { profilePictureUrl } = await changeProfilePicture(file, setPhotoProgress);
      setSummary((s) => (s ? { ...s, profilePictureUrl } : s));
      updateMe({ profilePictureUrl });
    } catch (err) {
      console.error(err);
      window.alert('Failed to update your photo. Please try again.');
    } finally {
      setPhotoProgress(null);
    }
  }

  if (!summary) return <ProfilePending failed={list.error} errorText="We couldn't load your profile." onRetry={list.retry} />;

  return (
    <div className={page.page}>
      <section className={styles.profile} aria-label="Your profile">
        <div className={styles.top}>
          <div className={styles.avatarWrap}>
            <Avatar name={name} pictureUrl={summary.profilePictureUrl} size={96} fallbackMug />
            {photoProgress !== null && (
              <span className={styles.avatarProgress} aria-hidden="true">
                {Math.round(photoProgress * 100)}%
              </span>
            )}
          </div>
          <div className={styles.identity}>
            <h1 className={styles.name}>{name}</h1>
            {email && <p className={styles.email}>{email}</p>}
          </div>
        </div>

        <ProfileStats
          className={styles.stats}
          figures={[
            ['Posts', summary.postCount],
            ['Likes', summary.totalLikes],
            ['Comments', summary.totalComments],
          ]}
        />
        <StorageUse version={summary.postCount} />

        <div className={styles.actions}>
          <button
            type="button"
            className={`${buttons.secondary} ${styles.grow}`}
            onClick={() => fileRef.current?.click()}
            disabled={photoProgress !== null}
          >
            <CameraIcon size={18} />
            {photoProgress !== null ? 'Uploading...' : 'Change Photo'}
          </button>
          <input
            ref={fileRef}
            type="file"
            accept="image/*"
            className="visually-hidden"
            tabIndex={-1}
            aria-label="Choose a new profile photo"
            onChange={onPhotoChosen}
          />
          <button type="button" className={`${buttons.danger} ${styles.grow}`} onClick={logout}>
            Logout
          </button>
        </div>
        <PrivateAccount isPrivate={summary.isPrivate} onChange={(isPrivate) => setSummary((s) => (s ? { ...s, isPrivate } : s))} />
        <SensitivePhotos />
        {summary.username && <DownloadData username={summary.username} />}
        {summary.username && <ChangePassword username={summary.username} />}
        {summary.username && <DeleteAccount username={summary.username} />}
        <BlockedPeople />
        <MutedServers />
        <InviteFriends />
        {photoProgress !== null && (
          <progress className={styles.progress} value={photoProgress} max={1} aria-label="Photo upload progress" />
        )}
      </section>

      <ModerationNotices />

      <section aria-labelledby="posts-heading">
        <h2 id="posts-heading" className={page.sectionTitle}>
          POSTS
        </h2>
        {list.items.length === 0 && list.done ? (
          <EmptyState icon={<CameraIcon size={28} />} title="No posts yet" text="Share your first shower beer moment!">
            <Link to="/app/create-post" className={buttons.primary}>
              Create a post
            </Link>
          </EmptyState>
        ) : (
          <PostGrid posts={grid.shown} showAnonymousBadge onOpen={setOpen} />
        )}
        {grid.tail && <GridTail list={list} endText="That's all your posts." />}
      </section>

      {open && (
        <PostDialog post={open} onClose={() => setOpen(null)} onChange={applyChange} onDelete={applyDelete} />
      )}
    </div>
  );
}
