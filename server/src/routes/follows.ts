import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { notFound } from '../errors.js';
import { ErrorBody, errors, FollowState, UsernameParams, writeErrors } from './api-schemas.js';

const responses = { 200: FollowState, ...writeErrors, 409: ErrorBody };

/** Followers of a user, follow and unfollow. Usernames match in any case. */
const followRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { follows, users, writes } = fastify;
  fastify.get(
    '/account/:username/followers',
    { schema: { params: UsernameParams, response: { 200: Type.Array(Type.Object({ username: Type.String() })), ...errors } } },
    async (request) => {
      // As the profile (GET /api/view-user-posts): 404 for someone the caller may not see, nothing listed for someone they blocked.
      const profile = users.publicProfile(request.params.username.trim(), request.user.id);
      if (!profile) throw notFound(`There is no user named "${request.params.username}".`);
      if (profile.isBlocked === 1) return [];
      return follows.followersOf(profile.id, request.user);
    },
  );

  fastify.post('/account/:username/follow', { schema: { params: UsernameParams, response: responses } }, async (request) =>
    writes.run(() => follows.follow(request.user.id, request.params.username)),
  );

  fastify.delete('/account/:username/follow', { schema: { params: UsernameParams, response: responses } }, async (request) =>
    writes.run(() => follows.unfollow(request.user.id, request.params.username)),
  );
};

export default followRoutes;
