import type Database from 'better-sqlite3';
import type { Shared } from '../kernel/shared.js';
import { conflict, forbidden, notFound } from '../kernel/errors.js';
import { MUTED_ACTOR, SILENCED } from '../kernel/notification-rules.js';
import type { PostsRepository } from '../posts/posts-repository.js';

export interface LikeState {
  likeCount: number;
  likedByUser: boolean;
}

/**
 * Likes, with posts.like_count and the author's likes_received kept in the same
 * transaction as the like itself, and the author's bell (notifications-repository.ts).
 */
export function createLikesRepository(sqlite: Database.Database, { counters, live }: Shared, posts: PostsRepository) {
  const state = sqlite.prepare<[number, number], { likeCount: number; liked: number }>(`
    SELECT p.like_count AS likeCount,
      EXISTS (SELECT 1 FROM likes l WHERE l.post_id = p.id AND l.user_id = ?) AS liked
    FROM posts p JOIN users u ON u.id = p.user_id
    WHERE p.id = ? AND p.is_profile_picture = 0 AND u.deleted_at IS NULL`);
  // GET /api/like answers only for a post the caller may see (posts.findVisible).
  // recipient_id: who the like notifies (notifications-repository.ts), nobody for one's own post.
  const insert = sqlite.prepare<[number, number, number, number | null]>(
    'INSERT INTO likes (post_id, user_id, created_at, recipient_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const remove = sqlite.prepare<[number, number], { createdAt: number; recipientId: number | null }>(
    'DELETE FROM likes WHERE post_id = ? AND user_id = ? RETURNING created_at AS createdAt, recipient_id AS recipientId',
  );
  // A like by a limited person the author does not follow notifies nobody (notification-rules.ts).
  const silenced = sqlite.prepare<{ actor: number; recipient: number }, number>(SILENCED).pluck();
  // A like from a server the author muted is kept (it counts on the post) but not on their bell, as the screen leaves it out.
  const muted = sqlite.prepare<{ actor: number; recipient: number }, number>(MUTED_ACTOR).pluck();
  // like_count, the author's likes_received and their bell (counters.ts).


  const change = sqlite.transaction((postId: number, userId: number, like: boolean): LikeState => {
    // The caller may have been removed or suspended since the request was authenticated.
    live.assert(userId);
    const post = posts.findVisible(postId, userId);
    if (!post) throw notFound('This post does not exist.');
    const notify = post.userId === userId || silenced.get({ actor: userId, recipient: post.userId }) !== undefined ? 0 : 1;
    // A like between people with a block by name (only possible on an anonymous post) is kept
    // out of the bell, as the Notifications screen leaves it out (notifications-repository.ts).
    const counts =
      notify === 1 && ((post.isAnonymous === 1 && posts.blockedByNameEitherWay(userId, post.userId)) || muted.get({ actor: userId, recipient: post.userId }) !== undefined)
        ? 0
        : notify;
    if (like && posts.refusesInteraction(post, userId)) throw forbidden('The author of this post has blocked you: you cannot like or comment on their posts.');
    let likeCount: number;
    if (like) {
      const at = Date.now();
      if (insert.run(postId, userId, at, notify ? post.userId : null).changes === 0) throw conflict('You already like this post.');
      likeCount = counters.likeAdded(postId, post.userId, counts, at);
    } else {
      const removed = remove.get(postId, userId);
      if (!removed) throw conflict('You do not like this post.');
      likeCount = counters.likeRemoved(postId, post.userId, removed.recipientId === null ? 0 : counts, removed.createdAt);
    }
    return { likeCount, likedByUser: like };
  });

  return {
    get(postId: number, userId: number): LikeState {
      const row = posts.findVisible(postId, userId) ? state.get(userId, postId) : undefined;
      if (!row) throw notFound('This post does not exist.');
      return { likeCount: row.likeCount, likedByUser: row.liked === 1 };
    },
    like: (postId: number, userId: number) => change.immediate(postId, userId, true),
    unlike: (postId: number, userId: number) => change.immediate(postId, userId, false),
  };
}

export type LikesRepository = ReturnType<typeof createLikesRepository>;
