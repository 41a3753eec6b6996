import type Database from 'better-sqlite3';
import type { Shared } from '../kernel/shared.js';
import { limitBy } from '../kernel/db/rows.js';
import { forbidden, notFound } from '../kernel/errors.js';
import { mutedActor, MUTED_ACTOR, SILENCED } from '../kernel/notification-rules.js';
import type { Keyset } from '../kernel/paging.js';
import { NOT_BLOCKED_BY_NAME, type PostsRepository } from '../posts/posts-repository.js';
import type { MentionsRepository } from './mentions-repository.js';
import { commentView, type CommentRow, type CommentView } from '../kernel/views.js';

/**
 * Comments, with posts.comment_count and the author's comments_received kept in
 * the same transaction as the write.
 */
export function createCommentsRepository(sqlite: Database.Database, { counters, live }: Shared, posts: PostsRepository, mentions: MentionsRepository) {
  // A block by name hides the other's comments, but not an anonymous post's author commenting on it:
  // shown without a name, hiding it would name them (docs/api.md, "Blocks and anonymity"). Comments
  // by people of a server the viewer muted are left out (server-mutes-repository.ts): a probe of
  // server_mutes' primary key per comment, only for a remote commenter.
  const list = sqlite.prepare<{ postId: number; viewer: number; anonymousAuthor: number; ts: number; id: number; limit: number }, CommentRow>(`
    SELECT c.id, c.post_id AS postId, c.user_id AS userId, c.content, c.created_at AS createdAt, u.username, c.mentions
    FROM comments c JOIN users u ON u.id = c.user_id
    WHERE c.post_id = @postId AND c.created_at >= @ts AND (c.created_at > @ts OR c.id > @id) AND c.hidden = 0
      AND (c.user_id = @anonymousAuthor OR (${NOT_BLOCKED_BY_NAME('c.user_id')}))
      AND (u.host IS NULL OR NOT EXISTS (${mutedActor('@viewer', 'c.user_id')}))
    ORDER BY c.created_at, c.id
    ${limitBy('@limit')}`);
  // recipient_id: who the comment notifies (notifications-repository.ts), nobody on one's own post.
  const insert = sqlite.prepare<[number, number, string, number, number | null, string | null], { id: number }>(
    'INSERT INTO comments (post_id, user_id, content, created_at, recipient_id, mentions) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
  );
  const find = sqlite.prepare<
    [number],
    {
      id: number;
      userId: number;
      postId: number;
      authorId: number;
      isProfilePicture: number;
      hidden: number;
      content: string;
      createdAt: number;
      recipientId: number | null;
    }
  >(`
    SELECT c.id, c.user_id AS userId, c.post_id AS postId, p.user_id AS authorId, p.is_profile_picture AS isProfilePicture,
      c.hidden, c.content, c.created_at AS createdAt, c.recipient_id AS recipientId
    FROM comments c JOIN posts p ON p.id = c.post_id
    WHERE c.id = ?`);
  const remove = sqlite.prepare<[number]>('DELETE FROM comments WHERE id = ?');
  // A comment @viewer sees on its post: the rule of the list above, for one comment.
  const commentSeen = sqlite.prepare<{ id: number; viewer: number }, number>(`
    SELECT 1 FROM comments c JOIN posts p ON p.id = c.post_id
    WHERE c.id = @id AND c.hidden = 0 AND ((p.is_anonymous = 1 AND c.user_id = p.user_id) OR (${NOT_BLOCKED_BY_NAME('c.user_id')}))`).pluck();
  // A comment by a limited person the author does not follow notifies nobody (notification-rules.ts).
  const silenced = sqlite.prepare<{ actor: number; recipient: number }, number>(SILENCED).pluck();
  // A comment from a server the post's author muted is shown to others but not on the author's bell.
  const muted = sqlite.prepare<{ actor: number; recipient: number }, number>(MUTED_ACTOR).pluck();
  // comment_count, the author's comments_received and their bell (counters.ts).


  const add = sqlite.transaction((postId: number, user: { id: number; username: string }, content: string): CommentView => {
    // The caller may have been removed or suspended since the request was authenticated.
    live.assert(user.id);
    const post = posts.findVisible(postId, user.id);
    if (!post) throw notFound('This post does not exist.');
    if (posts.refusesInteraction(post, user.id)) throw forbidden('The author of this post has blocked you: you cannot like or comment on their posts.');
    const createdAt = Date.now();
    const notify = post.userId === user.id || silenced.get({ actor: user.id, recipient: post.userId }) !== undefined ? 0 : 1;
    // The people it names (`@name`), kept on the row so every list links them (posts.mentions likewise).
    const named = mentions.named(content);
    const names = named.people.length > 0 ? JSON.stringify(named.people.map((p) => p.username)) : null;
    const { id } = insert.get(postId, user.id, content, createdAt, notify ? post.userId : null, names)!;
    // An anonymous post's author commenting on it is shown without a name: so is their mention.
    mentions.comment({ postId, commentId: id, userId: user.id, anonymous: post.isAnonymous === 1 && post.userId === user.id, at: createdAt }, named);
    // Between people with a block by name (only possible on an anonymous post): kept out of the bell, as out of the screen.
    const counts =
      notify === 1 && ((post.isAnonymous === 1 && posts.blockedByNameEitherWay(user.id, post.userId)) || muted.get({ actor: user.id, recipient: post.userId }) !== undefined)
        ? 0
        : notify;
    counters.commentAdded(postId, post.userId, counts, createdAt);
    return commentView({ id, postId, userId: user.id, content, createdAt, username: user.username, mentions: names }, post, user.id);
  });

  /** Removes a comment and takes it out of the counters; `byOperator` skips the ownership check. */
  const removeComment = (commentId: number, userId: number | null) => {
    const row = find.get(commentId);
    if (!row) throw notFound('This comment does not exist.');
    if (userId !== null && row.userId !== userId) {
      // Someone else's comment the caller cannot see (its post hidden from them, or the comment): as if it did not exist.
      if (!posts.findVisible(row.postId, userId) || commentSeen.get({ id: commentId, viewer: userId }) === undefined) {
        throw notFound('This comment does not exist.');
      }
      throw forbidden('Only the person who wrote a comment can delete it.');
    }
    // Its mentions go with it (cascade): first out of their recipients' bells.
    mentions.commentRemoving(commentId);
    remove.run(commentId);
    // A hidden comment (its author suspended) was already taken out of the counters (moderation-repository.ts).
    if (row.hidden === 1) return row;
    counters.commentRemoved(row);
    return row;
  };
  const del = sqlite.transaction((commentId: number, userId: number) => {
    live.assert(userId);
    removeComment(commentId, userId);
  });

  return {
    /** Oldest first, after `after`. */
    list(postId: number, viewerId: number, after: Keyset, limit: number): CommentView[] {
      const post = posts.findVisible(postId, viewerId);
      if (!post) throw notFound('This post does not exist.');
      return list.all({ postId, viewer: viewerId, anonymousAuthor: post.isAnonymous === 1 ? post.userId : 0, ts: after.createdAt, id: after.id, limit }).map((c) => commentView(c, post, viewerId));
    },
    add: (postId: number, user: { id: number; username: string }, content: string) => add.immediate(postId, user, content),
    delete: (commentId: number, userId: number) => del.immediate(commentId, userId),
    /** For an operator, inside their transaction (moderation-repository.ts): the removed comment's row. */
    removeAnyInTransaction: (commentId: number) => removeComment(commentId, null),
  };
}

export type CommentsRepository = ReturnType<typeof createCommentsRepository>;
