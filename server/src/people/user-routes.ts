import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { pictureUrl } from '../kernel/views.js';
import { badRequest, notFound } from '../kernel/errors.js';
import { ProfileMatches, SyncedUser } from '../contract/answers.js';
import { errors, writeErrors } from '../kernel/route-schemas.js';

export const SEARCH_TERM_MAX = 100;

/** sync-users (the auth hook has already upserted the caller) and profile search. */
const userRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { users } = fastify;
  fastify.post(
    '/sync-users',
    {
      schema: {
        response: { 200: SyncedUser, ...writeErrors },
      },
    },
    async (request) => {
      const profile = users.ownProfile(request.user.id);
      if (!profile) throw notFound('Your account does not exist.');
      return { username: profile.username, email: profile.email, profilePictureUrl: pictureUrl(profile.pictureKey) };
    },
  );

  fastify.get(
    '/search-profiles',
    {
      schema: {
        querystring: Type.Object({ username: Type.String({ maxLength: 1000 }) }),
        response: { 200: ProfileMatches, ...errors },
      },
    },
    async (request) => {
      const term = request.query.username.trim();
      if (term.length === 0) throw badRequest('username must not be blank.');
      if (term.length > SEARCH_TERM_MAX) throw badRequest(`username must be at most ${SEARCH_TERM_MAX} characters.`);
      const matches = users.search(term, request.user).map((m) => ({ username: m.username, profilePictureUrl: pictureUrl(m.pictureKey) }));
      // "@name@host" or a profile's URL, with federation on: that person, found on their server, first.
      const remote = await fastify.federation?.lookup(term);
      if (!remote) return matches;
      const found = users.exactMatch(remote, request.user);
      if (!found) return matches;
      return [{ username: found.username, profilePictureUrl: pictureUrl(found.pictureKey) }, ...matches.filter((m) => m.username !== found.username)];
    },
  );
};

export default userRoutes;
