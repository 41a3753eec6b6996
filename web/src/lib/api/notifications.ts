// The bell and the Notifications screen (docs/api.md, "Notifications").
import { paged, request } from '@/lib/api/client';
import { LISTS } from '@/lib/first-requests';
import type { NotificationGroupView as NotificationGroup } from '@server/api-shapes';

export type { NotificationGroup };

export const getUnreadNotifications = (signal?: AbortSignal) =>
  request<{ unread: number; followRequests: number }>('/api/notifications/unread', { signal });
export const notifications = paged<NotificationGroup[]>(LISTS.notifications);
/** Marks read everything up to `upTo` (the latestTime of the newest group shown); answers what stays unread. */
export const markNotificationsRead = (upTo: number) =>
  request<{ unread: number }>('/api/notifications/read', { method: 'POST', body: { upTo } });
