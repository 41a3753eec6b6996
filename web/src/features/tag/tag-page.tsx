import { useMemo } from 'react';
import { Link, useParams } from 'react-router-dom';
import buttons from '@/components/button.module.css';
import { Feed } from '@/components/feed';
import page from '@/components/page.module.css';
import { tagPosts } from '@/lib/api/feeds';

/** `/app/tag/:tag`: the posts whose caption has the tag, newest first, paged like Discover (issue 47). */
export function TagPage() {
  const tag = useParams().tag ?? '';
  const list = useMemo(() => tagPosts(tag), [tag]);
  return (
    <div className={page.page}>
      <h1 className={page.title}>#{tag}</h1>
      <Feed
        key={tag}
        list={list}
        emptyTitle={`No posts with #${tag} yet`}
        emptyText="Put the tag in a caption and your post shows here."
        emptyAction={
          <Link to="/app/create-post" className={buttons.primary}>
            Create a post
          </Link>
        }
      />
    </div>
  );
}
