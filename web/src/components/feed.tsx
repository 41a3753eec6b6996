import { useCallback } from 'react';
import { LoadMore } from '@/components/load-more';
import page from '@/components/page.module.css';
import { PostCard } from '@/components/post-card';
import { EmptyState, ErrorMessage, Loading } from '@/components/status';
import type { PagedCall } from '@/lib/api/client';
import type { Post } from '@/lib/api/posts';
import { usePagedList } from '@/lib/use-paged-list';
import { useRevealedList } from '@/lib/use-revealed';

interface FeedProps {
  /** The feed's pages (lib/api/feeds.ts), the first one index.html's early answer if it has one. */
  list: PagedCall<Post[]>;
  emptyTitle: string;
  emptyText: string;
  emptyAction?: React.ReactNode;
}

/**
 * A feed of post cards, one request per page: each post arrives with its like and
 * comment data, so nothing is fetched per post. More pages load as you scroll, or with
 * the "Load more posts" button at the end.
 */
export function Feed({ list: pages, emptyTitle, emptyText, emptyAction }: FeedProps) {
  const list = usePagedList(pages);
  // The first card renders alone, so its photo (the screen's largest paint) is drawn before the
  // next cards' photos are even asked for; the others follow one per task. A task that renders
  // one card is short; one that renders two was often past 12.5 ms here, which Lighthouse's
  // 4× CPU slowdown counts as blocking (docs/performance.md, "After the first paint").
  const { shown, tail } = useRevealedList(list, 1, 1);
  // The same functions on every render, so a card already on screen (memoised in
  // components/post-card.tsx) is not rendered again each time more cards are revealed.
  const { setItems } = list;
  const onChange = useCallback((p: Post) => setItems((items) => items.map((x) => (x.postid === p.postid ? p : x))), [setItems]);
  const onDelete = useCallback((id: number) => setItems((items) => items.filter((x) => x.postid !== id)), [setItems]);
  const onAuthorBlocked = useCallback(
    (p: Post) => setItems((items) => items.filter((x) => x.postid !== p.postid && (p.isAnonymous || x.isAnonymous || x.username !== p.username))),
    [setItems],
  );

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
          onChange={onChange}
          onDelete={onDelete}
          onAuthorBlocked={onAuthorBlocked}
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
