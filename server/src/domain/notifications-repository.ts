import type Database from 'better-sqlite3';
import { limitBy } from '../db/rows.js';

/**
 * The Notifications screen and the bell. Notifications themselves are written and
 * taken back by migration 0010's triggers on likes, comments and follows, in the
 * transaction of the write that causes them; blocks and suspensions delete theirs
 * (blocks-repository.ts, suspension.ts). Here they are only read and marked read.
 */
export interface NotificationGroupRow {
  id: number;
  kind: 'like' | 'comment' | 'follow';
  postId: number | null;
  mediaKey: string | null;
  day: number;
  count: number;
  actorCount: number;
  /** JSON: [[username, pictureKey], …], newest first. */
  actors: string;
  excerpt: string | null;
  latestId: number;
  latestAt: number;
}

export function createNotificationsRepository(sqlite: Database.Database) {
  // One row by primary key: the count is kept by triggers, never counted here.
  const unread = sqlite.prepare<[number], number>('SELECT unread_notifications FROM users WHERE id = ?').pluck();

  // Groups newest first by their newest member (notification_groups_page_idx). Likes and
  // follows are one per person, so a group's count is its number of people and its
  // newest three members are its newest three people; comments are counted by person.
  const page = sqlite.prepare<{ user: number; before: number; limit: number }, NotificationGroupRow>(`
    SELECT g.id, g.kind, g.post_id AS postId, p.media_key AS mediaKey, g.day, g.count,
      CASE WHEN g.kind = 'comment'
        THEN (SELECT count(DISTINCT actor_id) FROM notifications WHERE group_id = g.id)
        ELSE g.count END AS actorCount,
      CASE WHEN g.kind = 'comment'
        THEN (SELECT json_group_array(json_array(u.username, u.profile_picture_key) ORDER BY a.newest DESC)
              FROM (SELECT actor_id, max(id) AS newest FROM notifications WHERE group_id = g.id
                    GROUP BY actor_id ORDER BY newest DESC LIMIT 3) a JOIN users u ON u.id = a.actor_id)
        ELSE (SELECT json_group_array(json_array(u.username, u.profile_picture_key) ORDER BY a.id DESC)
              FROM (SELECT id, actor_id FROM notifications WHERE group_id = g.id ORDER BY id DESC LIMIT 3) a
              JOIN users u ON u.id = a.actor_id) END AS actors,
      CASE WHEN g.kind = 'comment' THEN (SELECT c.content FROM comments c WHERE c.id = n.comment_id) END AS excerpt,
      g.latest_id AS latestId, n.created_at AS latestAt
    FROM notification_groups g
    JOIN notifications n ON n.id = g.latest_id
    LEFT JOIN posts p ON p.id = g.post_id
    WHERE g.user_id = @user AND g.latest_id < @before
    ORDER BY g.latest_id DESC
    ${limitBy('@limit')}`);

  const seenId = sqlite.prepare<[number], number>('SELECT notifications_seen_id FROM users WHERE id = ?').pluck();
  // What is still unread after seeing up to @upTo: only groups with a newer member hold any.
  const markSeen = sqlite.prepare<{ user: number; upTo: number }>(`
    UPDATE users SET notifications_seen_id = @upTo,
      unread_notifications = (
        SELECT count(*) FROM notifications n
        WHERE n.group_id IN (SELECT id FROM notification_groups WHERE user_id = @user AND latest_id > @upTo)
          AND n.id > @upTo)
    WHERE id = @user`);

  // The newest notification the person has: marking read never reaches past it, so an
  // upTo from the future cannot hide notifications that have not happened yet.
  const newestId = sqlite.prepare<[number], number>(
    'SELECT coalesce(max(latest_id), 0) FROM notification_groups WHERE user_id = ?',
  ).pluck();
  const markRead = sqlite.transaction((user: number, upTo: number): number => {
    const target = Math.min(upTo, newestId.get(user) ?? 0);
    if (target > (seenId.get(user) ?? 0)) markSeen.run({ user, upTo: target });
    return unread.get(user) ?? 0;
  });

  return {
    unread: (user: number): number => unread.get(user) ?? 0,
    seenId: (user: number): number => seenId.get(user) ?? 0,
    page: (user: number, before: number, limit: number): NotificationGroupRow[] => page.all({ user, before, limit }),
    /** Marks read everything up to notification `upTo` (the newest the person was shown); answers what stays unread. */
    markRead: (user: number, upTo: number): number => markRead.immediate(user, upTo),
  };
}

export type NotificationsRepository = ReturnType<typeof createNotificationsRepository>;
