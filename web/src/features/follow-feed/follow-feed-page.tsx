import { Link } from 'react-router-dom';
import buttons from '@/components/button.module.css';
import { Feed } from '@/components/feed';
import page from '@/components/page.module.css';
import { followFeed } from '@/lib/api/feeds';

/** `/app/follow-feed`: posts from the people you follow (the home feed). */
export function FollowFeedPage() {
  return (
    <div className={page.page}>
      <h1 className={page.title}>Following Feed</h1>
      <Feed
        list={followFeed}
        emptyTitle="No posts from people you follow yet!"
        emptyText="Follow some users to see their shower beer moments here."
        emptyAction={
          <Link to="/app/search-profile" className={buttons.secondary}>
            Find people to follow
          </Link>
        }
      />
    </div>
  );
}
