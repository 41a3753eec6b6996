import { LoadMore } from '@/components/load-more';
import page from '@/components/page.module.css';
import { PostCard } from '@/components/post-card';
import { EmptyState, ErrorMessage, Loading } from '@/components/status';
import type { Post } from '@/lib/api';
import { FEED_PAGE as PAGE } from '@/lib/first-requests';
import { usePagedList } from '@/lib/use-paged-list';
import { useRevealedList } from '@/lib/use-revealed';

interface FeedProps {
  fetchPage: (params: { limit: number; cursor?: string; signal: AbortSignal }) => Promise<Post[]>;
  emptyTitle: string;
  emptyText: string;
  emptyAction?: React.ReactNode;
  /** The first page, if it is already here (lib/early.ts). */
  firstPage?: Post[];
}

/**
 * A feed of post cards, one request per page: each post arrives with its like and
 * comment data, so nothing is fetched per post. More pages load as you scroll, or with
 * the "Load more posts" button at the end.
 */
export function Feed({ fetchPage, emptyTitle, emptyText, emptyAction, firstPage }: FeedProps) {
  const list = usePagedList((cursor, signal) => fetchPage({ limit: PAGE, cursor, signal }), PAGE, '', firstPage);
  // The first card renders alone, so its photo (the screen's largest paint) is drawn before the
  // next cards' photos are even asked for; the others follow a couple at a time.
  const { shown, tail } = useRevealedList(list, 1, 2);

  if (list.items.length === 0) {
    if (list.error) return <ErrorMessage text="We couldn't load the posts." onRetry={list.retry} />;
    if (!list.done) return <Loading />;
    return (
      <EmptyState title={emptyTitle} text={emptyText}>
        {emptyAction}
      </EmptyState>
    );
  }

  return (
    <div className={page.stack}>
      {shown.map((post, i) => (
        <PostCard
          key={post.postid}
          post={post}
          eager={i < 2}
          priority={i === 0}
          onChange={(p) => list.setItems((items) => items.map((x) => (x.postid === p.postid ? p : x)))}
          onDelete={(id) => list.setItems((items) => items.filter((x) => x.postid !== id))}
          onAuthorBlocked={(p) =>
            list.setItems((items) => items.filter((x) => x.postid !== p.postid && (p.isAnonymous || x.isAnonymous || x.username !== p.username)))
          }
        />
      ))}
      {tail && (
        <>
          {list.error && <ErrorMessage text="We couldn't load more posts." onRetry={list.retry} />}
          {list.loading && <Loading />}
          <LoadMore list={list} what="posts" endText="You're all caught up. Cheers!" alwaysShowEnd />
        </>
      )}
    </div>
  );
}
