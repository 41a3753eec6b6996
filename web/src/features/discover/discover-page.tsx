import { Link } from 'react-router-dom';
import buttons from '@/components/button.module.css';
import { Feed } from '@/components/feed';
import page from '@/components/page.module.css';
import { discoverPosts } from '@/lib/api/feeds';

/** `/app/discover`: everyone's posts, newest first. */
export function DiscoverPage() {
  return (
    <div className={page.page}>
      <h1 className={page.title}>Discover</h1>
      <Feed
        list={discoverPosts}
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
