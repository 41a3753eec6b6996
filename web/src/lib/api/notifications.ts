// The bell and the Notifications screen (docs/api.md, "Notifications").
import { paged, request } from '@/lib/api/client';
import { LISTS } from '@/lib/first-requests';
import type * as answers from '@server/contract/answers';
import type * as shapes from '@server/contract/api-shapes';
import type { Static } from 'typebox';

export type NotificationGroup = Static<typeof shapes.NotificationGroup>;

export const getUnreadNotifications = (signal?: AbortSignal) =>
  request<Static<typeof answers.UnreadCounts>>('/api/notifications/unread', { signal });
export const notifications = paged<Static<typeof answers.NotificationGroups>>(LISTS.notifications);
/** Marks read everything up to `upTo` (the latestTime of the newest group shown); answers what stays unread. */
export const markNotificationsRead = (upTo: number) =>
  request<Static<typeof shapes.UnreadNotifications>>('/api/notifications/read', { method: 'POST', body: { upTo } });
