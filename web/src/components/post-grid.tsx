import { memo } from 'react';
import { CommentIcon, HeartIcon } from '@/components/icons';
import type { Post } from '@/lib/api';
import { formatCount, photoAlt } from '@/lib/format';
import styles from './post-grid.module.css';

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
  return (
    <li>
      <button
        type="button"
        className={styles.tile}
        onClick={() => onOpen(post)}
        aria-label={`Open post: ${post.caption}. ${post.likeCount} likes, ${post.commentCount} comments${
          post.isAnonymous && showAnonymousBadge ? ', posted anonymously' : ''
        }`}
      >
        <img
          src={post.thumbnailUrl || post.s3Url}
          alt={photoAlt(post)}
          width={400}
          height={400}
          loading={eager ? 'eager' : 'lazy'}
          decoding="async"
        />
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
