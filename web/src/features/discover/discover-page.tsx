import { Link } from 'react-router-dom';
import buttons from '@/components/button.module.css';
import { Feed } from '@/components/feed';
import page from '@/components/page.module.css';
import { getDiscoverPosts, type Post } from '@/lib/api';
import { useEarlyAnswer } from '@/lib/early';
import { apiPaths, FEED_PAGE } from '@/lib/first-requests';

/** `/app/discover`: everyone's posts, newest first. */
export function DiscoverPage() {
  const firstPage = useEarlyAnswer<Post[]>('main', apiPaths.discoverPosts({ limit: FEED_PAGE }));
  return (
    <div className={page.page}>
      <h1 className={page.title}>Discover</h1>
      <Feed
        fetchPage={getDiscoverPosts}
        firstPage={firstPage}
        emptyTitle="No posts yet!"
        emptyText="Be the first to share your shower beer moment."
        emptyAction={
          <Link to="/app/create-post" className={buttons.primary}>
            Create a post
          </Link>
        }
      />
    </div>
  );
}
