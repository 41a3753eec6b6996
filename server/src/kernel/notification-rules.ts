/**
 * The rules the Notifications screen and the bell read by, as SQL fragments: shared by
 * notifications-repository.ts (the screen) and counters.ts (the bell's count).
 */

// Who counts, for recipient `r` (a column or parameter) and actor `a`: not suspended, not
// blocked by name either way, not on a server the recipient muted (server_mutes, which count in
// block_count too). users.block_count = 0 (nearly everyone) skips the block and mute probes.
// A block of an anonymous post's author (blocks.post_id set) changes no bell: the blocker's
// would lose that author's likes, comments and follows, and so learn who wrote the post.
export const visibleActor = (r: string, a: string) => `
  (SELECT suspended_at IS NULL AND deleted_at IS NULL FROM users WHERE id = ${a})
  AND ((SELECT block_count FROM users WHERE id = ${r}) = 0 OR (NOT EXISTS (
    SELECT 1 FROM blocks WHERE ((blocker_id = ${r} AND blocked_id = ${a}) OR (blocker_id = ${a} AND blocked_id = ${r}))
      AND post_id IS NULL) AND NOT EXISTS (${mutedActor(r, a)})))`;

/**
 * Whether actor `a` (a column or parameter) is a person of a server recipient `r` muted
 * (moderation/server-mutes-repository.ts): one probe of the users primary key, then of server_mutes'.
 * What such a person does towards `r` is kept but counts on no bell and lists nowhere, until unmuted.
 */
export const mutedActor = (r: string, a: string) =>
  `SELECT 1 FROM users ma JOIN server_mutes sm ON sm.user_id = ${r} AND sm.host = ma.host WHERE ma.id = ${a}`;

/** mutedActor for @recipient and @actor: the writes of likes, comments and mentions ask it before moving a bell. */
export const MUTED_ACTOR = mutedActor('@recipient', '@actor');

/**
 * Whether what @actor does towards @recipient notifies nobody: @actor is a person of a server the
 * operator limited (users.limited; Mastodon's "silence") whom @recipient does not follow. Decided
 * when the like, comment, mention or follow arrives (its recipient_id stays null, or its
 * follows.notifies 0, so it never rings nor lists), as Mastodon filters such notifications when they are made: no bell moves later when a
 * limit or a follow changes. One probe of the users primary key for everyone else.
 */
export const SILENCED = `SELECT 1 FROM users a WHERE a.id = @actor AND a.limited = 1
  AND NOT EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = @recipient AND f.followee_id = @actor)`;

/**
 * Likes to `r` (a column or parameter) as `l`: on r's posts, found per post by the likes
 * primary key (post_id, created_at, user_id), not one's own; `range` limits created_at.
 */
export const likesTo = (r: string, range: string) => `
  posts p JOIN likes l ON l.post_id = p.id AND ${range}
  WHERE p.user_id = ${r} AND p.is_profile_picture = 0 AND l.recipient_id IS NOT NULL`;

/**
 * Comments to `r` (a column or parameter) as `c`: on r's posts, found per post by
 * comments_post_idx (post_id, created_at), not by the author, shown; `range` limits created_at.
 */
export const commentsTo = (r: string, range: string) => `
  posts p JOIN comments c ON c.post_id = p.id AND ${range}
  WHERE p.user_id = ${r} AND p.is_profile_picture = 0 AND c.recipient_id IS NOT NULL AND c.hidden = 0`;

/**
 * Mentions of `r` (a column or parameter) as `m`, in a post's caption or a comment, by time
 * (mentions_recipient_idx); `range` limits created_at. Its rows are taken back with their post
 * or comment (cascade), and mentions-repository.ts drops those an edit removes.
 */
export const mentionsTo = (r: string, range: string) => `
  mentions m WHERE m.recipient_id = ${r} AND ${range}`;

/**
 * Follow requests of `r` (a column or parameter) that were approved, as `f` (the followee is the
 * actor), by follows_accepted_idx, partial on accepted = 1; `range` limits created_at. A follow
 * that answered a request is the follower's notification, not the followee's: the followee did it.
 */
export const acceptedFor = (r: string, range: string) => `
  follows f WHERE f.follower_id = ${r} AND f.accepted = 1 AND ${range}`;

/** What is newer than @seen for user @user, by the rules above (also migration 0012's recount; mentions since 0027). */
export const UNREAD_COUNT = `
  (SELECT count(*) FROM ${likesTo('@user', 'l.created_at > @seen')} AND ${visibleActor('@user', 'l.user_id')})
  + (SELECT count(*) FROM ${commentsTo('@user', 'c.created_at > @seen')} AND ${visibleActor('@user', 'c.user_id')})
  + (SELECT count(*) FROM follows f WHERE f.followee_id = @user AND f.created_at > @seen AND f.accepted = 0 AND f.notifies = 1 AND ${visibleActor('@user', 'f.follower_id')})
  + (SELECT count(*) FROM ${acceptedFor('@user', 'f.created_at > @seen')} AND ${visibleActor('@user', 'f.followee_id')})
  + (SELECT count(*) FROM ${mentionsTo('@user', 'm.created_at > @seen')} AND ${visibleActor('@user', 'm.user_id')})`;

/**
 * The created_at of user @user's newest notification before @before (ms), visible or not,
 * or null: two index seeks per post of the person. Where the Notifications screen's next day
 * is, and what users.notified_at is at least (migration 0016 filled it in the same way).
 */
export const NEWEST_BEFORE = `
  (SELECT max(t) FROM (
    SELECT max((SELECT l.created_at FROM likes l WHERE l.post_id = p.id AND l.created_at < @before
            AND l.recipient_id IS NOT NULL ORDER BY l.created_at DESC LIMIT 1)) AS t
      FROM posts p WHERE p.user_id = @user AND p.is_profile_picture = 0
    UNION ALL SELECT max((SELECT c.created_at FROM comments c WHERE c.post_id = p.id AND c.created_at < @before
            AND c.recipient_id IS NOT NULL ORDER BY c.created_at DESC LIMIT 1))
      FROM posts p WHERE p.user_id = @user AND p.is_profile_picture = 0
    UNION ALL SELECT (SELECT created_at FROM follows WHERE followee_id = @user AND created_at < @before AND accepted = 0 AND notifies = 1
            ORDER BY created_at DESC LIMIT 1)
    UNION ALL SELECT (SELECT created_at FROM follows WHERE follower_id = @user AND accepted = 1 AND created_at < @before
            ORDER BY created_at DESC LIMIT 1)
    UNION ALL SELECT (SELECT created_at FROM mentions WHERE recipient_id = @user AND created_at < @before
            ORDER BY created_at DESC LIMIT 1)))`;
