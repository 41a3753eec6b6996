import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../kernel/errors.js';
import type { FederatedFollow } from './follows-repository.js';
import { FollowApproved, FollowDeclined, FollowRequests, Followers } from '../contract/answers.js';
import { pictureUrl } from '../kernel/views.js';
import { ErrorBody, errors, FollowState, UsernameParams, writeErrors } from '../kernel/route-schemas.js';

const responses = { 200: FollowState, ...writeErrors, 409: ErrorBody };

/** Followers of a user, follow and unfollow. Usernames match in any case. */
const followRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { follows, users, writes } = fastify;
  fastify.get(
    '/account/:username/followers',
    { schema: { params: UsernameParams, response: { 200: Followers, ...errors } } },
    async (request) => {
      // As the profile (GET /api/view-user-posts): 404 for someone the caller may not see, nothing listed for someone they blocked.
      const profile = users.publicProfile(request.params.username.trim(), request.user.id);
      if (!profile) throw notFound(`There is no user named "${request.params.username}".`);
      if (profile.isBlocked === 1) return [];
      return follows.followersOf(profile.id, request.user);
    },
  );

  // Someone on another server is told once the write has committed (federation/plugin.ts).
  const delivered = async <T extends { federate?: FederatedFollow | FederatedFollow[] | undefined }>(result: T): Promise<T> => {
    await fastify.federation?.deliver(result.federate);
    return result;
  };

  fastify.post('/account/:username/follow', { schema: { params: UsernameParams, response: responses } }, async (request) =>
    delivered(await writes.run(() => follows.follow(request.user.id, request.params.username))),
  );

  fastify.delete('/account/:username/follow', { schema: { params: UsernameParams, response: responses } }, async (request) =>
    delivered(await writes.run(() => follows.unfollow(request.user.id, request.params.username))),
  );

  // Follow requests to the caller's private account (docs/api.md, "Private accounts").
  fastify.get(
    '/follow-requests',
    { schema: { response: { 200: FollowRequests, ...errors } } },
    async (request) =>
      follows.requestsTo(request.user.id).map((r) => ({
        username: r.username,
        profilePictureUrl: pictureUrl(r.pictureKey),
        created_at: new Date(r.createdAt).toISOString(),
      })),
  );

  fastify.post(
    '/follow-requests/:username/approve',
    { schema: { params: UsernameParams, response: { 200: FollowApproved, ...writeErrors, 409: ErrorBody } } },
    async (request) => delivered(await writes.run(() => follows.approve(request.user.id, request.params.username.trim()))),
  );

  fastify.delete(
    '/follow-requests/:username',
    { schema: { params: UsernameParams, response: { 200: FollowDeclined, ...writeErrors } } },
    async (request) => {
      const federate = await writes.run(() => follows.decline(request.user.id, request.params.username.trim()));
      await delivered({ federate });
      return { declined: true as const };
    },
  );
};

export default followRoutes;
