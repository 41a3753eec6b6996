import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { UnreadNotifications, type NotificationGroupView } from '../contract/api-shapes.js';
import { NotificationGroups, UnreadCounts } from '../contract/answers.js';
import { DAY_MS, NOTIFICATION_CURSOR_PATTERN, type NotificationGroupRow } from './notifications-repository.js';
import { pictureUrl } from '../kernel/views.js';
import { badRequest } from '../kernel/errors.js';
import { mediaUrls } from '../kernel/storage/media-keys.js';
import { errors, writeErrors } from '../kernel/route-schemas.js';

function groupView(row: NotificationGroupRow, seenAt: number): NotificationGroupView {
  return {
    groupId: `${row.kind}.${row.postId ?? 0}.${row.day}`,
    kind: row.kind,
    post: row.postId !== null && row.mediaKey !== null ? { postid: row.postId, thumbnailUrl: mediaUrls(row.mediaKey).thumbnailUrl } : null,
    day: new Date(row.day * DAY_MS).toISOString().slice(0, 10),
    actors: row.actors.map((a) => ({ username: a.username, profilePictureUrl: pictureUrl(a.pictureKey) })),
    actorCount: row.actorCount,
    count: row.count,
    excerpt: row.excerpt,
    latestAt: new Date(row.latestAt).toISOString(),
    latestTime: row.latestAt,
    unread: row.latestAt > seenAt,
    cursor: row.cursor,
  };
}

/** The bell's unread count, the Notifications screen (grouped, newest first, keyset pages), and marking read. */
const notificationRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { notifications, writes } = fastify;

  // Polled by the web app every 30 s at most while a tab is visible: one primary-key read, and
  // the follow requests waiting for a private account (docs/api.md, "Private accounts"), whose
  // count the bell adds: usually an empty range of the follow_requests primary key.
  fastify.get('/notifications/unread', { schema: { response: { 200: UnreadCounts, ...errors } } }, async (request) => ({
    unread: notifications.unread(request.user.id),
    followRequests: fastify.follows.waitingFor(request.user.id),
  }));

  fastify.get(
    '/notifications',
    {
      schema: {
        querystring: Type.Object(
          {
            limit: Type.Integer({ minimum: 1, maximum: 50, default: 20 }),
            cursor: Type.Optional(Type.String({ pattern: NOTIFICATION_CURSOR_PATTERN })),
          },
          { additionalProperties: false },
        ),
        response: { 200: NotificationGroups, ...errors },
      },
    },
    async (request) => {
      const seenAt = notifications.seenAt(request.user.id);
      return notifications.page(request.user.id, request.query.cursor, request.query.limit).map((row) => groupView(row, seenAt));
    },
  );

  fastify.post(
    '/notifications/read',
    {
      schema: {
        body: Type.Object({ upTo: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
        response: { 200: UnreadNotifications, ...writeErrors },
      },
    },
    async (request) => {
      const { upTo } = request.body;
      if (!Number.isSafeInteger(upTo)) throw badRequest('upTo must be the latestTime of a notification group.');
      return { unread: await writes.run(() => notifications.markRead(request.user.id, upTo)) };
    },
  );
};

export default notificationRoutes;
