import type Database from 'better-sqlite3';
import type { Shared } from '../kernel/shared.js';
import { badRequest } from '../kernel/errors.js';
import { acceptedFor, commentsTo, likesTo, mentionsTo, NEWEST_BEFORE, visibleActor } from '../kernel/notification-rules.js';

export { recountAllUnread } from '../kernel/counters.js';

/**
 * The Notifications screen and the bell, read from the likes, comments, follows and mentions
 * themselves (mentions by recipient and time, mentions_recipient_idx, as follows): a like or comment carries its recipient (the post's author, null on one's
 * own post; set by likes-repository.ts and comments-repository.ts). Follows are found through
 * follows_followee_time_idx; likes and comments through the recipient's posts
 * (posts_user_feed_idx) and each post's likes or comments by time (the likes primary key,
 * comments_post_idx), which every like and comment writes anyway: an index by recipient
 * cost each like or comment one more b-tree page, 15-25% of its CPU on the reference set,
 * while this read costs two index seeks per post of the recipient (docs/performance.md,
 * "Notifications and the write rows").
 * Nothing is written for a notification, so undoing a like, deleting a comment or a post,
 * or removing an account takes its notification back by itself.
 *
 * The bell's count is users.unread_notifications, moved in the same UPDATE of the
 * recipient's row that a like, comment or follow already makes for likes_received,
 * comments_received or follower_count (counters.ts: likeAdded, commentAdded, followAdded; a
 * trigger cost a like and unlike pair 45 µs more, measured on the reference set). What
 * removes one in bulk (a block, a suspension, a post's or an account's removal) moves it
 * in counters.ts, by the rules the screen reads by: nothing by or towards
 * someone blocked either way, nothing by a suspended person, no hidden comment.
 */

export type NotificationKind = 'like' | 'comment' | 'follow' | 'mention' | 'commentMention' | 'followAccepted';
const KINDS: readonly NotificationKind[] = ['like', 'comment', 'follow', 'mention', 'commentMention', 'followAccepted'];

export const DAY_MS = 86_400_000;

/** One kind of notification on one post (or of you, for follows) on one UTC day. */
export interface NotificationGroupRow {
  kind: NotificationKind;
  postId: number | null;
  mediaKey: string | null;
  /** Days since the epoch (UTC). */
  day: number;
  count: number;
  actorCount: number;
  /** The newest people first, at most 3. */
  actors: Array<{ username: string; pictureKey: string | null }>;
  /** The newest comment's text, for comments. */
  excerpt: string | null;
  /** created_at (ms) of its newest member. */
  latestAt: number;
  cursor: string;
}

/** A position in the screen's order: day, newest first; then newest member, kind and post. */
interface Position {
  day: number;
  latestAt: number;
  kind: number;
  postKey: number;
}

/** Cursors are `<day>.<latestAtMs>.<kind 0-5>.<postId or 0>`; the route schema checks the shape. */
export const NOTIFICATION_CURSOR_PATTERN = '^[0-9]{1,8}\\.[0-9]{1,15}\\.[0-5]\\.[0-9]{1,15}$';

function formatPosition(p: Position): string {
  return `${p.day}.${p.latestAt}.${p.kind}.${p.postKey}`;
}

function parsePosition(cursor: string): Position {
  const parts = cursor.split('.').map(Number);
  if (parts.length !== 4 || !parts.every((n) => Number.isSafeInteger(n) && n >= 0)) {
    throw badRequest('cursor must be given by a previous page of notifications.');
  }
  const [day, latestAt, kind, postKey] = parts as [number, number, number, number];
  return { day, latestAt, kind, postKey };
}

/**
 * Whether `a` comes after `b` in the screen's order: newest first; groups whose newest
 * member came in the same millisecond by kind (follows, comments, likes) and then newest post.
 */
function isAfter(a: Position, b: Position): boolean {
  if (a.day !== b.day) return a.day < b.day;
  if (a.latestAt !== b.latestAt) return a.latestAt < b.latestAt;
  if (a.kind !== b.kind) return a.kind < b.kind;
  return a.postKey < b.postKey;
}

export function createNotificationsRepository(sqlite: Database.Database, { counters, live }: Shared) {
  // One row by primary key: the count is kept by the writes (see the top of this file), never counted here.
  const unread = sqlite.prepare<[number], number>('SELECT unread_notifications FROM users WHERE id = ?').pluck();
  const seenAt = sqlite.prepare<[number], number>('SELECT notifications_seen_at FROM users WHERE id = ?').pluck();
  // At or after the newest notification there is (users.notified_at): one row by primary key.
  const notifiedAt = sqlite.prepare<[number], number>('SELECT notified_at FROM users WHERE id = ?').pluck();
  // Where a page starts and how busy the person has been: notified_at and the counts their
  // writes keep, over the account's age (one row by primary key).
  const activity = sqlite.prepare<[number], { notifiedAt: number; createdAt: number; received: number }>(
    'SELECT notified_at AS notifiedAt, created_at AS createdAt, likes_received + comments_received + follower_count AS received FROM users WHERE id = ?',
  );
  const setNotifiedAt = sqlite.prepare<{ user: number; at: number }>('UPDATE users SET notified_at = @at WHERE id = @user');

  // The newest notification before @before (ms): where the next day to read is.
  const newestBefore = sqlite.prepare<{ user: number; before: number }, number | null>(`SELECT ${NEWEST_BEFORE}`).pluck();

  // The notifications of whole UTC days [@from, @to), newest first, by people who count: index
  // ranges (likes' and comments' one per post of the recipient, whatever the range's length).
  const windowEvents = sqlite
    .prepare<{ user: number; from: number; to: number }, [number, number | null, number, number, number | null, number]>(`
    SELECT 0, l.post_id, l.user_id, l.created_at, NULL, 0 FROM ${likesTo('@user', 'l.created_at >= @from AND l.created_at < @to')}
      AND ${visibleActor('@user', 'l.user_id')}
    UNION ALL
    SELECT 1, c.post_id, c.user_id, c.created_at, c.id, 0 FROM ${commentsTo('@user', 'c.created_at >= @from AND c.created_at < @to')}
      AND ${visibleActor('@user', 'c.user_id')}
    UNION ALL
    SELECT 2, NULL, f.follower_id, f.created_at, NULL, 0 FROM follows f
      WHERE f.followee_id = @user AND f.created_at >= @from AND f.created_at < @to AND f.accepted = 0 AND f.notifies = 1 AND ${visibleActor('@user', 'f.follower_id')}
    UNION ALL
    SELECT 5, NULL, f.followee_id, f.created_at, NULL, 0 FROM ${acceptedFor('@user', 'f.created_at >= @from AND f.created_at < @to')}
      AND ${visibleActor('@user', 'f.followee_id')}
    UNION ALL
    SELECT 3 + (m.comment_id IS NOT NULL), m.post_id, m.user_id, m.created_at, m.comment_id, m.anonymous
      FROM ${mentionsTo('@user', 'm.created_at >= @from AND m.created_at < @to')} AND ${visibleActor('@user', 'm.user_id')}
    ORDER BY 4 DESC`)
    .raw(true);

  const people = sqlite.prepare<[string], { id: number; username: string; pictureKey: string | null }>(
    'SELECT id, username, profile_picture_key AS pictureKey FROM users WHERE id IN (SELECT value FROM json_each(?))',
  );
  const mediaKeys = sqlite.prepare<[string], { id: number; mediaKey: string }>(
    'SELECT id, media_key AS mediaKey FROM posts WHERE id IN (SELECT value FROM json_each(?))',
  );
  const excerpts = sqlite.prepare<[string], { id: number; content: string }>(
    'SELECT id, content FROM comments WHERE id IN (SELECT value FROM json_each(?))',
  );

  interface Building {
    position: Position;
    postId: number | null;
    count: number;
    actors: Set<number>;
    newest: number[];
    commentId: number | null;
  }

  /** The groups of the whole days in [fromDay, toDay) in the screen's order, and how many notifications they hold. */
  function groupsOfDays(user: number, fromDay: number, toDay: number): { groups: Building[]; events: number } {
    const groups = new Map<string, Building>();
    let events = 0;
    for (const [kind, postId, actor, at, commentId, anonymous] of windowEvents.all({ user, from: fromDay * DAY_MS, to: toDay * DAY_MS })) {
      events += 1;
      const day = Math.floor(at / DAY_MS);
      const key = `${day}.${kind}.${postId ?? 0}`;
      let group = groups.get(key);
      if (!group) {
        // Rows come newest first: the first of a group is its newest.
        group = { position: { day, latestAt: at, kind, postKey: postId ?? 0 }, postId, count: 0, actors: new Set(), newest: [], commentId };
        groups.set(key, group);
      }
      group.count += 1;
      // A mention by an anonymous post's author names nobody: "Someone mentioned you" (issue 47).
      if (anonymous === 1) continue;
      if (!group.actors.has(actor)) {
        group.actors.add(actor);
        if (group.newest.length < 3) group.newest.push(actor);
      }
    }
    return { groups: [...groups.values()].sort((a, b) => (isAfter(a.position, b.position) ? 1 : -1)), events };
  }

  // A page reads whole days, newest first, in windows of several days: each window costs the
  // same index seeks per post of the recipient whatever its length, so a person whose
  // notifications are few and far between is answered in a few windows instead of a day at a
  // time (the bench reader's first page, 20 groups over 18 days in 129, went from 725 to 237 µs of CPU). The next window is sized from the
  // notifications a day seen so far, aiming at WINDOW_EVENTS of them, and grows at most
  // WINDOW_GROWTH times a window, so a busy day after quiet ones costs a small window.
  // An empty window jumps to the newest notification before it (NEWEST_BEFORE).
  const WINDOW_EVENTS = 200;
  const WINDOW_GROWTH = 4;
  const MAX_WINDOW_DAYS = 128;
  // Days with nothing anyone may see are skipped; a page looks back at most this many windows.
  const MAX_WINDOWS_A_PAGE = 400;

  function page(user: number, cursor: string | undefined, limit: number): NotificationGroupRow[] {
    const after = cursor === undefined ? undefined : parsePosition(cursor);
    const found: Building[] = [];
    // The first page starts at the day of users.notified_at (at or after the newest notification);
    // a later one at the day of the cursor's group, which it finishes.
    const person = activity.get(user);
    if (!person) return [];
    let toDay: number | null;
    if (after !== undefined) toDay = after.day + 1;
    else toDay = person.notifiedAt ? Math.floor(person.notifiedAt / DAY_MS) + 1 : null;
    // The first window from the person's notifications a day over the account's life (what they
    // received, kept by the writes), aiming at WINDOW_EVENTS: the bench reader (67 over 352
    // days) read its first page in 5 windows of 1, 4, 16, 64 and 128 days, and now in 2. A burst
    // the average hides is a day's events whatever the window; later windows follow what was read.
    const lifeDays = Math.max(1, (Math.max(person.notifiedAt, person.createdAt) - person.createdAt) / DAY_MS);
    const priorPerDay = Math.max(person.received, 1) / lifeDays;
    let windowDays = Math.max(1, Math.min(Math.floor(WINDOW_EVENTS / priorPerDay), MAX_WINDOW_DAYS));
    let daysRead = 0;
    let eventsRead = 0;
    for (let windows = 0; toDay !== null && found.length < limit && windows < MAX_WINDOWS_A_PAGE; windows++) {
      const fromDay = toDay - windowDays;
      const { groups, events } = groupsOfDays(user, fromDay, toDay);
      for (const group of groups) {
        if (after !== undefined && !isAfter(group.position, after)) continue;
        if (found.length < limit) found.push(group);
      }
      daysRead += windowDays;
      eventsRead += events;
      if (events === 0) {
        // Nothing anyone may see in the window: on to the day of the newest notification before it.
        const newest = newestBefore.get({ user, before: fromDay * DAY_MS });
        toDay = newest === null || newest === undefined ? null : Math.floor(newest / DAY_MS) + 1;
      } else toDay = fromDay;
      const perDay = Math.max(eventsRead, 1) / daysRead;
      windowDays = Math.max(1, Math.min(Math.floor(WINDOW_EVENTS / perDay), windowDays * WINDOW_GROWTH, MAX_WINDOW_DAYS));
    }
    if (found.length === 0) return [];

    const json = (ids: Iterable<number>) => JSON.stringify([...new Set(ids)]);
    const who = new Map(people.all(json(found.flatMap((g) => g.newest))).map((p) => [p.id, p]));
    const media = new Map(mediaKeys.all(json(found.flatMap((g) => (g.postId === null ? [] : [g.postId])))).map((p) => [p.id, p.mediaKey]));
    const text = new Map(excerpts.all(json(found.flatMap((g) => (g.commentId === null ? [] : [g.commentId])))).map((c) => [c.id, c.content]));
    return found.map((g) => ({
      kind: KINDS[g.position.kind]!,
      postId: g.postId,
      mediaKey: g.postId === null ? null : (media.get(g.postId) ?? null),
      day: g.position.day,
      count: g.count,
      actorCount: g.actors.size,
      actors: g.newest.flatMap((id) => {
        const person = who.get(id);
        return person ? [{ username: person.username, pictureKey: person.pictureKey }] : [];
      }),
      excerpt: g.commentId === null ? null : (text.get(g.commentId) ?? null),
      latestAt: g.position.latestAt,
      cursor: formatPosition(g.position),
    }));
  }

  // Marking read never reaches past the newest notification there is, so an upTo from the
  // future cannot hide notifications that have not happened yet. Up to the newest (the usual
  // case: the screen was opened), nothing is left to count. users.notified_at is at or after
  // the newest, in this same row and moved by every write that makes one: when upTo reaches
  // it, this reads one row, however many posts the person has (it holds the write lock).
  // Short of it, the newest is found (two seeks per post) and notified_at set to it, as one
  // taken back since may have left it later.
  const markRead = sqlite.transaction((user: number, upTo: number): number => {
    live.assert(user);
    let newest = notifiedAt.get(user) ?? 0;
    if (upTo < newest) {
      const exact = newestBefore.get({ user, before: Number.MAX_SAFE_INTEGER }) ?? 0;
      if (exact < newest) {
        newest = exact;
        setNotifiedAt.run({ user, at: exact });
      }
    }
    const target = Math.min(upTo, newest);
    if (target > (seenAt.get(user) ?? 0)) counters.notificationsSeen(user, target, target === newest);
    return unread.get(user) ?? 0;
  });

  return {
    unread: (user: number): number => unread.get(user) ?? 0,
    seenAt: (user: number): number => seenAt.get(user) ?? 0,
    /** Groups newest first, after `cursor` (a previous group's). */
    page,
    /** Marks read everything up to `upTo` (ms: the newest notification the person was shown); answers what stays unread. */
    markRead: (user: number, upTo: number): number => markRead.immediate(user, upTo),
  };
}

export type NotificationsRepository = ReturnType<typeof createNotificationsRepository>;
