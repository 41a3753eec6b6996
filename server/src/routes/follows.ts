import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorBody, errors, FollowState, UsernameParams, writeErrors } from './api-schemas.js';

const responses = { 200: FollowState, ...writeErrors, 409: ErrorBody };

/** Followers of a user, follow and unfollow. Usernames match in any case. */
const followRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { follows, writes } = fastify;
  fastify.get(
    '/account/:username/followers',
    { schema: { params: UsernameParams, response: { 200: Type.Array(Type.Object({ username: Type.String() })), ...errors } } },
    async (request) => follows.followersOf(request.params.username),
  );

  fastify.post('/account/:username/follow', { schema: { params: UsernameParams, response: responses } }, async (request) =>
    writes.run(() => follows.follow(request.user.id, request.params.username)),
  );

  fastify.delete('/account/:username/follow', { schema: { params: UsernameParams, response: responses } }, async (request) =>
    writes.run(() => follows.unfollow(request.user.id, request.params.username)),
  );
};

export default followRoutes;
