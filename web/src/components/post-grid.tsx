import { memo } from 'react';
import { AlbumIcon, CommentIcon, HeartIcon } from '@/components/icons';
import { LoadMore } from '@/components/load-more';
import page from '@/components/page.module.css';
import { ErrorMessage, Loading } from '@/components/status';
import type { Post } from '@/lib/api/posts';
import { formatCount, photoAlt } from '@/lib/format';
import type { PagedList } from '@/lib/use-paged-list';
import styles from './post-grid.module.css';

/** A profile screen (own or someone's) before its profile has arrived: what went wrong, with Retry, else Loading. */
export function ProfilePending({ failed, errorText, onRetry }: { failed: boolean; errorText: string; onRetry: () => void }) {
  return (
    <div className={page.page}>{failed ? <ErrorMessage text={errorText} onRetry={onRetry} /> : <Loading text="Loading profile... 👤" />}</div>
  );
}

/** What follows a profile's grid once its first rows are shown: a failed page with Retry, Loading, and Load more. */
export function GridTail({ list, endText }: { list: PagedList<Post>; endText?: string }) {
  return (
    <>
      {list.error && <ErrorMessage text="We couldn't load more posts." onRetry={list.retry} />}
      {list.loading && list.items.length > 0 && <Loading />}
      <LoadMore list={list} what="posts" endText={endText} />
    </>
  );
}

interface PostGridProps {
  posts: Post[];
  /** Show the 'Anonymous' badge (the owner's own grid). */
  showAnonymousBadge?: boolean;
  onOpen: (post: Post) => void;
}

/**
 * Thumbnails in a square grid with like and comment counts laid over them. A profile reveals
 * its grid a few tiles at a time (lib/use-revealed.ts); the tiles are memoised, so each step
 * renders only the new ones, not the whole grid again.
 */
export function PostGrid({ posts, showAnonymousBadge = false, onOpen }: PostGridProps) {
  return (
    <ul className={styles.grid}>
      {posts.map((post, i) => (
        <GridTile key={post.postid} post={post} eager={i < 9} showAnonymousBadge={showAnonymousBadge} onOpen={onOpen} />
      ))}
    </ul>
  );
}

interface GridTileProps {
  post: Post;
  /** The first three rows load their thumbnail at once; the rest lazily. */
  eager: boolean;
  showAnonymousBadge: boolean;
  onOpen: (post: Post) => void;
}

const GridTile = memo(function GridTile({ post, eager, showAnonymousBadge, onOpen }: GridTileProps) {
  const photoCount = post.photos?.length ?? 1;
  return (
    <li>
      <button
        type="button"
        className={styles.tile}
        onClick={() => onOpen(post)}
        aria-label={`Open post: ${post.caption}. ${photoCount > 1 ? `Album of ${photoCount} photos. ` : ''}${post.likeCount} likes, ${
          post.commentCount
        } comments${post.isAnonymous && showAnonymousBadge ? ', posted anonymously' : ''}`}
      >
        <img
          src={post.thumbnailUrl || post.s3Url}
          alt={photoAlt(post)}
          width={400}
          height={400}
          loading={eager ? 'eager' : 'lazy'}
          decoding="async"
        />
        {photoCount > 1 && (
          <span className={styles.album} aria-hidden="true">
            <AlbumIcon size={20} filled />
          </span>
        )}
        {showAnonymousBadge && post.isAnonymous && (
          <span className={styles.badge} aria-hidden="true">
            Anonymous
          </span>
        )}
        <span className={styles.overlay} aria-hidden="true">
          <span>
            <HeartIcon size={16} filled /> {formatCount(post.likeCount)}
          </span>
          <span>
            <CommentIcon size={16} filled /> {formatCount(post.commentCount)}
          </span>
        </span>
      </button>
    </li>
  );
});
