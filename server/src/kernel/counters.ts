import type Database from 'better-sqlite3';
import { mutedActor, NEWEST_BEFORE, UNREAD_COUNT, visibleActor } from './notification-rules.js';

/**
 * Every write of a counter column, and only here: users.post_count, public_post_count,
 * likes_received, comments_received, follower_count, following_count and
 * unread_notifications (the bell), and posts.like_count and comment_count. Each operation
 * is a prepared statement (or a few) run inside the caller's transaction, named after what
 * happened; the repositories and the test factories call them, so the arithmetic is
 * spelled once. `npm run test:stress`'s verifier (scripts/stress/verify.ts) checks that
 * they add up to the rows.
 *
 * Counters on users only cover visible posts (never profile pictures); the bell counts
 * what notifications-repository.ts shows (the rules in notification-rules.ts).
 */
export function createCounters(sqlite: Database.Database) {
  const unread = createUnreadAdjust(sqlite);

  // Posts.
  const countPost = sqlite.prepare<[number, number]>(
    'UPDATE users SET post_count = post_count + 1, public_post_count = public_post_count + ? WHERE id = ?',
  );
  const uncountPost = sqlite.prepare<[number, number, number, number]>(
    `UPDATE users SET post_count = MAX(post_count - 1, 0),
                      public_post_count = MAX(public_post_count - ?, 0),
                      likes_received = MAX(likes_received - ?, 0),
                      comments_received = MAX(comments_received - ?, 0)
     WHERE id = ?`,
  );

  // Likes: the post's count, and the author's row with their bell: +1 for someone else's like;
  // -1 when one taken back was unread.
  const bumpPostLikes = sqlite.prepare<[number, number], { likeCount: number }>(
    'UPDATE posts SET like_count = like_count + ? WHERE id = ? RETURNING like_count AS likeCount',
  );
  const likeToAuthor = sqlite.prepare<{ author: number; notify: number; at: number }>(`
    UPDATE users SET likes_received = likes_received + 1, unread_notifications = unread_notifications + @notify,
      notified_at = max(notified_at, @at * @notify)
    WHERE id = @author`);
  const unlikeToAuthor = sqlite.prepare<{ author: number; notify: number; at: number }>(`
    UPDATE users SET likes_received = likes_received - 1,
      unread_notifications = max(unread_notifications - (@notify AND @at > notifications_seen_at), 0)
    WHERE id = @author`);

  // Comments, likewise (a new one: +1 on the author's bell for someone else's).
  const bumpPostComments = sqlite.prepare<[number, number]>('UPDATE posts SET comment_count = comment_count + ? WHERE id = ?');
  const commentToAuthor = sqlite.prepare<{ author: number; notify: number; at: number }>(`
    UPDATE users SET comments_received = comments_received + 1, unread_notifications = unread_notifications + @notify,
      notified_at = max(notified_at, @at * @notify)
    WHERE id = @author`);
  const uncommentToAuthor = sqlite.prepare<[number, number]>(
    'UPDATE users SET comments_received = comments_received + ? WHERE id = ?',
  );

  // Follows: the followee's row, with their bell: +1 for a new follower, -1 for one gone whose
  // follow was unread. A follow only stands between people with no block.
  // A follower on a server the followee muted counts on no bell (notification-rules.ts, mutedActor;
  // the row's own block_count = 0, nearly everyone, as mutes count there, skips the probe), nor
  // does a follow that notifies nobody (follows.notifies = 0): both count as a follower.
  const addFollower = sqlite.prepare<{ follower: number; followee: number; at: number; notify: number }, { followerCount: number }>(`
    UPDATE users SET follower_count = follower_count + 1,
      unread_notifications = unread_notifications + (@notify AND (block_count = 0 OR NOT EXISTS (${mutedActor('@followee', '@follower')}))),
      notified_at = max(notified_at, @at * @notify)
    WHERE id = @followee RETURNING follower_count AS followerCount`);
  const dropFollower = sqlite.prepare<{ follower: number; followee: number; at: number; notify: number }, { followerCount: number }>(`
    UPDATE users SET follower_count = follower_count - 1,
      unread_notifications = max(unread_notifications - (@notify AND @at > notifications_seen_at AND (block_count = 0 OR NOT EXISTS (${mutedActor('@followee', '@follower')}))), 0)
    WHERE id = @followee RETURNING follower_count AS followerCount`);
  const bumpFollowing = sqlite.prepare<[number, number]>('UPDATE users SET following_count = following_count + ? WHERE id = ?');
  // An accepted follow request (follows.accepted = 1): the bell is the follower's ("X accepted your
  // follow request"), never the followee's, who pressed Approve.
  const bumpFollowers = sqlite.prepare<[number, number], { followerCount: number }>(
    'UPDATE users SET follower_count = follower_count + ? WHERE id = ? RETURNING follower_count AS followerCount',
  );
  const acceptedToFollower = sqlite.prepare<{ follower: number; followee: number; at: number }>(`
    UPDATE users SET following_count = following_count + 1,
      unread_notifications = unread_notifications + (block_count = 0 OR NOT EXISTS (${mutedActor('@follower', '@followee')})),
      notified_at = max(notified_at, @at)
    WHERE id = @follower`);
  const unacceptedToFollower = sqlite.prepare<{ follower: number; followee: number; at: number }>(`
    UPDATE users SET following_count = following_count - 1,
      unread_notifications = max(unread_notifications - (@at > notifications_seen_at AND (block_count = 0 OR NOT EXISTS (${mutedActor('@follower', '@followee')}))), 0)
    WHERE id = @follower`);
  // A follow taken by a block, both counts at once (its bell already went with the block's).
  const uncountFollow = sqlite.prepare<{ follower: number; followee: number }>(`
    UPDATE users SET
      follower_count = follower_count - (id = @followee),
      following_count = following_count - (id = @follower)
    WHERE id IN (@follower, @followee)`);

  // What a suspension takes out of everyone's counters (-1) and lifting it puts back (+1):
  // each count is grouped once per post or user it moves (UPDATE ... FROM), not counted
  // again for every row it moves: suspending someone with 12,708 likes on 2,593 people's
  // posts took 1.9 s in likes_received alone that way, at the bench's reference scale.
  const suspensionSteps = [
    `WITH d AS (
       SELECT p.user_id AS id, count(*) AS n FROM likes l JOIN posts p ON p.id = l.post_id
       WHERE l.user_id = @user AND p.is_profile_picture = 0 GROUP BY p.user_id)
     UPDATE users SET likes_received = likes_received + @sign * d.n FROM d WHERE users.id = d.id`,
    'UPDATE posts SET like_count = like_count + @sign WHERE id IN (SELECT post_id FROM likes WHERE user_id = @user)',
    `WITH d AS (
       SELECT p.user_id AS id, count(*) AS n FROM comments c JOIN posts p ON p.id = c.post_id
       WHERE c.user_id = @user AND p.is_profile_picture = 0 GROUP BY p.user_id)
     UPDATE users SET comments_received = comments_received + @sign * d.n FROM d WHERE users.id = d.id`,
    `WITH d AS (SELECT post_id AS id, count(*) AS n FROM comments WHERE user_id = @user GROUP BY post_id)
     UPDATE posts SET comment_count = comment_count + @sign * d.n FROM d WHERE posts.id = d.id`,
    'UPDATE users SET follower_count = follower_count + @sign WHERE id IN (SELECT followee_id FROM follows WHERE follower_id = @user)',
    'UPDATE users SET following_count = following_count + @sign WHERE id IN (SELECT follower_id FROM follows WHERE followee_id = @user)',
  ].map((sql) => sqlite.prepare<{ user: number; sign: number }>(sql));

  // What an account's removal takes out of other people's counters: the likes, comments and
  // follows it made (visible posts only count on users), before those rows go.
  const removalSteps = [
    `UPDATE users SET likes_received = likes_received - (
       SELECT count(*) FROM likes l JOIN posts p ON p.id = l.post_id
       WHERE l.user_id = @me AND p.user_id = users.id AND p.is_profile_picture = 0)
     WHERE id IN (SELECT p.user_id FROM likes l JOIN posts p ON p.id = l.post_id WHERE l.user_id = @me) AND id <> @me`,
    `UPDATE posts SET like_count = like_count - 1
     WHERE id IN (SELECT post_id FROM likes WHERE user_id = @me) AND user_id <> @me`,
    `UPDATE users SET comments_received = comments_received - (
       SELECT count(*) FROM comments c JOIN posts p ON p.id = c.post_id
       WHERE c.user_id = @me AND p.user_id = users.id AND p.is_profile_picture = 0)
     WHERE id IN (SELECT p.user_id FROM comments c JOIN posts p ON p.id = c.post_id WHERE c.user_id = @me) AND id <> @me`,
    `UPDATE posts SET comment_count = comment_count - (SELECT count(*) FROM comments c WHERE c.post_id = posts.id AND c.user_id = @me)
     WHERE id IN (SELECT post_id FROM comments WHERE user_id = @me) AND user_id <> @me`,
    'UPDATE users SET follower_count = follower_count - 1 WHERE id IN (SELECT followee_id FROM follows WHERE follower_id = @me)',
    'UPDATE users SET following_count = following_count - 1 WHERE id IN (SELECT follower_id FROM follows WHERE followee_id = @me)',
  ].map((sql) => sqlite.prepare<{ me: number }>(sql));
  const zeroAccount = sqlite.prepare<[number]>(
    `UPDATE users SET post_count = 0, public_post_count = 0, likes_received = 0, comments_received = 0,
       follower_count = 0, following_count = 0, unread_notifications = 0
     WHERE id = ?`,
  );

  // The bell read: up to a moment (what is newer is counted again), or up to the newest there is.
  const markSeen = sqlite.prepare<{ user: number; seen: number }>(`
    UPDATE users SET notifications_seen_at = @seen, unread_notifications = (${UNREAD_COUNT})
    WHERE id = @user`);
  // The bell counted again by the rules, up to the person's own notifications_seen_at (a mute or an unmute of a server).
  const seenAt = sqlite.prepare<[number], number>('SELECT notifications_seen_at FROM users WHERE id = ?').pluck();
  const recount = sqlite.prepare<{ user: number; seen: number }>(`UPDATE users SET unread_notifications = (${UNREAD_COUNT}) WHERE id = @user`);
  const markAllSeen = sqlite.prepare<{ user: number; seen: number }>(
    'UPDATE users SET notifications_seen_at = @seen, unread_notifications = 0 WHERE id = @user',
  );

  // A mention (social/mentions-repository.ts): its recipient's bell, +1 when it counts.
  const mentionToRecipient = sqlite.prepare<{ recipient: number; at: number }>(`
    UPDATE users SET unread_notifications = unread_notifications + 1, notified_at = max(notified_at, @at)
    WHERE id = @recipient`);

  return {
    /** A mention of `recipient` made `at` that counts (not oneself, no block by name either way, the writer live). */
    mentioned(recipient: number, at: number): void {
      mentionToRecipient.run({ recipient, at });
    },
    /** Before mentions are deleted (an edit took them out of a caption): out of their recipients' bells, those that counted. */
    mentionsForgotten(mentionIds: number[]): void {
      if (mentionIds.length > 0) unread.mentions(JSON.stringify(mentionIds));
    },
    /** Before a comment is deleted: the mentions it made leave their recipients' bells. */
    commentMentionsRemoved(commentId: number): void {
      unread.commentMentions(commentId);
    },
    /** A post made (not a profile picture: those count nowhere). */
    postCreated(userId: number, isAnonymous: boolean): void {
      countPost.run(isAnonymous ? 0 : 1, userId);
    },
    /**
     * Before a post's row is deleted (its likes, comments and mentions go with it): its notifications
     * leave its author's bell and the bells of the people its caption and comments mention, and a post that is not a profile picture leaves the author's counters.
     */
    postDeleted(post: { id: number; userId: number; isProfilePicture: number; isAnonymous: number; likeCount: number; commentCount: number }): void {
      unread.post(post.id);
      unread.postMentions(post.id);
      if (!post.isProfilePicture) uncountPost.run(post.isAnonymous ? 0 : 1, post.likeCount, post.commentCount, post.userId);
    },
    /** A like on `postId` by someone (`notify` 1: it rings the author's bell, made `at`); the post's new like_count. */
    likeAdded(postId: number, author: number, notify: number, at: number): number {
      likeToAuthor.run({ author, notify, at });
      return bumpPostLikes.get(1, postId)!.likeCount;
    },
    /** A like taken back (`notify` 1: it counted on the bell, made `at`); the post's new like_count. */
    likeRemoved(postId: number, author: number, notify: number, at: number): number {
      unlikeToAuthor.run({ author, notify, at });
      return bumpPostLikes.get(-1, postId)!.likeCount;
    },
    /** A comment on `postId` (`notify` 1: it rings the author's bell, written `at`). */
    commentAdded(postId: number, author: number, notify: number, at: number): void {
      bumpPostComments.run(1, postId);
      commentToAuthor.run({ author, notify, at });
    },
    /** A shown comment deleted: the post's count, its author's (visible posts only) and the bell it rang, if it counted. */
    commentRemoved(comment: { postId: number; authorId: number; isProfilePicture: number; userId: number; recipientId: number | null; createdAt: number }): void {
      bumpPostComments.run(-1, comment.postId);
      if (comment.isProfilePicture === 0) uncommentToAuthor.run(-1, comment.authorId);
      if (comment.recipientId !== null) unread.forget(comment.userId, comment.recipientId, comment.createdAt);
    },
    /** A follow made `at` (`notify` 0: it rings no bell, follows.notifies); the followee's new follower_count. */
    followAdded(follower: number, followee: number, at: number, notify = 1): number {
      const { followerCount } = addFollower.get({ follower, followee, at, notify })!;
      bumpFollowing.run(1, follower);
      return followerCount;
    },
    /** A follow request approved `at` (follows.accepted = 1): the follower's bell rings; the followee's new follower_count. */
    followAccepted(follower: number, followee: number, at: number): number {
      acceptedToFollower.run({ follower, followee, at });
      return bumpFollowers.get(1, followee)!.followerCount;
    },
    /** A follow made `at` undone (`accepted`: it was an approved request); the followee's new follower_count. */
    followRemoved(follower: number, followee: number, at: number, accepted = false, notify = 1): number {
      if (accepted) {
        unacceptedToFollower.run({ follower, followee, at });
        return bumpFollowers.get(-1, followee)!.followerCount;
      }
      const { followerCount } = dropFollower.get({ follower, followee, at, notify })!;
      bumpFollowing.run(-1, follower);
      return followerCount;
    },
    /** A follow removed by a block between the two (after blockNotified, which took its bell). */
    followBlocked(follower: number, followee: number): void {
      uncountFollow.run({ follower, followee });
    },
    /**
     * The bells a block by name changes: before it is made (-1), after it is lifted (+1),
     * what either made towards the other.
     */
    blockNotified(a: number, b: number, sign: -1 | 1): void {
      unread.pair(a, b, sign);
    },
    /** Before `user` is suspended, while their comments still show: out of every bell and counter. */
    suspending(user: number): void {
      unread.actor(user, -1);
      for (const step of suspensionSteps) step.run({ user, sign: -1 });
    },
    /** After a suspension is lifted (the account marked and its comments shown again): back into every counter and bell. */
    suspensionLifted(user: number): void {
      for (const step of suspensionSteps) step.run({ user, sign: 1 });
      unread.actor(user, 1);
    },
    /** Before an account's likes, comments and follows are deleted: out of everyone's bells and counters. */
    accountRemoving(user: number): void {
      unread.actor(user, -1);
      // Others' mentions in comments on the account's posts go with those posts.
      unread.mentionsOnPostsOf(user);
      for (const step of removalSteps) step.run({ me: user });
    },
    /** The removed account's own counters, once its rows are gone. */
    accountRemoved(user: number): void {
      zeroAccount.run(user);
    },
    /** After one of `user`'s server mutes was made or lifted (moderation/server-mutes-repository.ts): their bell counted again. */
    serverMutesChanged(user: number): void {
      const seen = seenAt.get(user);
      if (seen !== undefined) recount.run({ user, seen });
    },
    /** The bell read up to `seen`; `all`: nothing newer exists, so nothing is left to count. */
    notificationsSeen(user: number, seen: number, all: boolean): void {
      (all ? markAllSeen : markSeen).run({ user, seen });
    },
  };
}

export type Counters = ReturnType<typeof createCounters>;

/**
 * Moves the bells a block or a suspension changes, inside the caller's transaction, by
 * what they hide: reading only the actor's own likes, comments and follows (by user), so
 * its cost is that person's activity, never the recipients' whole history.
 */
function createUnreadAdjust(sqlite: Database.Database) {
  // One notification taken back (a comment deleted, perhaps by an operator), if it counted.
  const forget = sqlite.prepare<{ actor: number; recipient: number; at: number }>(`
    UPDATE users SET unread_notifications = max(unread_notifications - 1, 0)
    WHERE id = @recipient AND @at > notifications_seen_at AND ${visibleActor('@recipient', '@actor')}`);
  // What is unread and counts on one post, for its author: before the post is deleted.
  const authorOf = sqlite.prepare<[number], number>('SELECT user_id FROM posts WHERE id = ?').pluck();
  const post = sqlite.prepare<{ post: number; author: number }>(`
    UPDATE users SET unread_notifications = max(unread_notifications - (
      SELECT count(*) FROM (
        SELECT user_id AS actor, created_at AS at FROM likes WHERE post_id = @post AND recipient_id IS NOT NULL
        UNION ALL SELECT user_id, created_at FROM comments WHERE post_id = @post AND recipient_id IS NOT NULL AND hidden = 0)
      WHERE at > users.notifications_seen_at AND ${visibleActor('@author', 'actor')}), 0)
    WHERE id = @author`);
  // What @actor made towards @recipient that is unread and counts now; by @sign.
  const pair = sqlite.prepare<{ actor: number; recipient: number; sign: number }>(`
    UPDATE users SET unread_notifications = max(unread_notifications + @sign * (
      SELECT count(*) FROM (
        SELECT created_at AS at FROM likes WHERE user_id = @actor AND recipient_id = @recipient
        UNION ALL SELECT created_at FROM comments WHERE user_id = @actor AND recipient_id = @recipient AND hidden = 0
        UNION ALL SELECT created_at FROM follows WHERE follower_id = @actor AND followee_id = @recipient AND accepted = 0 AND notifies = 1
        UNION ALL SELECT created_at FROM follows WHERE followee_id = @actor AND follower_id = @recipient AND accepted = 1
        UNION ALL SELECT created_at FROM mentions WHERE recipient_id = @recipient AND user_id = @actor)
      WHERE at > users.notifications_seen_at), 0)
    WHERE id = @recipient AND ${visibleActor('@recipient', '@actor')}`);
  // Everything unread @actor made that counts now, per recipient; by @sign.
  const actor = sqlite.prepare<{ actor: number; sign: number }>(`
    WITH made AS (
      SELECT recipient_id AS id, created_at AS at FROM likes WHERE user_id = @actor AND recipient_id IS NOT NULL
      UNION ALL SELECT recipient_id, created_at FROM comments WHERE user_id = @actor AND recipient_id IS NOT NULL AND hidden = 0
      UNION ALL SELECT followee_id, created_at FROM follows WHERE follower_id = @actor AND followee_id <> @actor AND accepted = 0 AND notifies = 1
      UNION ALL SELECT follower_id, created_at FROM follows WHERE followee_id = @actor AND follower_id <> @actor AND accepted = 1
      UNION ALL SELECT recipient_id, created_at FROM mentions WHERE user_id = @actor AND recipient_id IS NOT NULL),
    unread AS (
      SELECT made.id, count(*) AS n FROM made JOIN users r ON r.id = made.id
      WHERE made.at > r.notifications_seen_at AND ${visibleActor('made.id', '@actor')}
      GROUP BY made.id)
    UPDATE users SET unread_notifications = max(unread_notifications + @sign * unread.n, 0)
    FROM unread WHERE users.id = unread.id`);
  // Mentions about to be deleted, per recipient, those unread that count now: -1 each.
  const forgetMentions = (where: string) =>
    sqlite.prepare(`
    WITH gone AS (
      SELECT m.recipient_id AS id, count(*) AS n FROM mentions m JOIN users r ON r.id = m.recipient_id
      WHERE ${where} AND m.recipient_id IS NOT NULL AND m.created_at > r.notifications_seen_at
        AND ${visibleActor('m.recipient_id', 'm.user_id')}
      GROUP BY m.recipient_id)
    UPDATE users SET unread_notifications = max(unread_notifications - gone.n, 0)
    FROM gone WHERE users.id = gone.id`);
  const mentionsOfPost = forgetMentions('m.post_id = @id');
  const mentionsOfComment = forgetMentions('m.comment_id = @id');
  const mentionsById = forgetMentions('m.id IN (SELECT value FROM json_each(@ids))');
  const othersMentionsOnPostsOf = forgetMentions('m.post_id IN (SELECT id FROM posts WHERE user_id = @id) AND m.user_id <> @id');
  return {
    /** Before a post is deleted with the mentions of its caption and comments. */
    postMentions(postId: number): void {
      mentionsOfPost.run({ id: postId });
    },
    /** Before a comment is deleted with its mentions. */
    commentMentions(commentId: number): void {
      mentionsOfComment.run({ id: commentId });
    },
    /** Before an account's posts are deleted: the mentions others made in comments on them (its own go by `actor`). */
    mentionsOnPostsOf(user: number): void {
      othersMentionsOnPostsOf.run({ id: user });
    },
    /** Before the mentions `ids` (a JSON array) are deleted. */
    mentions(ids: string): void {
      mentionsById.run({ ids });
    },
    /** Before a block between `a` and `b` is made (-1), or after it is lifted (+1). */
    pair(a: number, b: number, sign: -1 | 1): void {
      pair.run({ actor: a, recipient: b, sign });
      pair.run({ actor: b, recipient: a, sign });
    },
    /** A comment deleted: its recipient's bell, if it counted there. */
    forget(actor: number, recipient: number, at: number): void {
      forget.run({ actor, recipient, at });
    },
    /** Before a post is deleted with its likes and comments. */
    post(postId: number): void {
      const author = authorOf.get(postId);
      if (author !== undefined) post.run({ post: postId, author });
    },
    /**
     * Before `user` is suspended (-1, while their comments still show), after it is lifted
     * (+1), or before the account's likes, comments and follows are deleted (-1).
     */
    actor(user: number, sign: -1 | 1): void {
      actor.run({ actor: user, sign });
    },
  };
}

/**
 * Everyone's bell and notified_at from the rows (the bench seed, and tests, after a bulk load
 * that moved neither).
 */
export function recountAllUnread(sqlite: Database.Database): void {
  sqlite
    .prepare(`UPDATE users SET unread_notifications = (
      SELECT ${UNREAD_COUNT.replaceAll('@user', 'u.id').replaceAll('@seen', 'u.notifications_seen_at')} FROM users u WHERE u.id = users.id),
      notified_at = coalesce(${NEWEST_BEFORE.replaceAll('@user', 'users.id').replaceAll('@before', String(Number.MAX_SAFE_INTEGER))}, 0)`)
    .run();
}
