import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { NEWEST, parseCursor } from '../domain/paging.js';
import { pictureUrl, postViews } from '../domain/views.js';
import { notFound } from '../errors.js';
import { errors, OwnProfile, PageQuery, Posts, UserProfile } from './api-schemas.js';

/** Discover, the following feed, the caller's own profile and other people's profiles. */
const feedRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { posts, reads, users } = fastify;
  // The read tasks give the Posts schema's JSON (feeds/page-json.ts); the text is sent as it is.
  const json = (reply: FastifyReply, text: string | Buffer) => reply.type('application/json; charset=utf-8').send(text);

  fastify.get(
    '/discover-posts',
    { schema: { querystring: PageQuery, response: { 200: Posts, ...errors } } },
    async (request, reply) =>
      json(
        reply,
        await reads.run('discover', {
          viewer: request.user.id,
          blockCount: request.user.blockCount,
          before: parseCursor(request.query.cursor, NEWEST),
          limit: request.query.limit,
        }),
      ),
  );

  fastify.get(
    '/followFeed',
    { schema: { querystring: PageQuery, response: { 200: Posts, ...errors } } },
    async (request, reply) =>
      json(
        reply,
        await reads.run('following', {
          viewer: request.user.id,
          blockCount: request.user.blockCount,
          followingCount: request.user.followingCount,
          before: parseCursor(request.query.cursor, NEWEST),
          limit: request.query.limit,
        }),
      ),
  );

  fastify.get(
    '/user-posts',
    {
      schema: {
        querystring: PageQuery,
        response: {
          200: OwnProfile,
          ...errors,
        },
      },
    },
    async (request) => {
      const me = request.user.id;
      const before = parseCursor(request.query.cursor, NEWEST);
      const profile = users.ownProfile(me);
      if (!profile) throw notFound('Your account does not exist.');
      return {
        username: profile.username,
        email: profile.email,
        profilePictureUrl: pictureUrl(profile.pictureKey),
        postCount: profile.postCount,
        totalLikes: profile.likesReceived,
        totalComments: profile.commentsReceived,
        followerCount: profile.followerCount,
        followingCount: profile.followingCount,
        posts: postViews(posts.ownPosts(request.user, before, request.query.limit), me),
      };
    },
  );

  fastify.get(
    '/view-user-posts',
    {
      schema: {
        querystring: Type.Object({
          ...PageQuery.properties,
          username: Type.String({ minLength: 1, maxLength: 200 }),
        }),
        response: {
          200: UserProfile,
          ...errors,
        },
      },
    },
    async (request) => {
      const me = request.user.id;
      const before = parseCursor(request.query.cursor, NEWEST);
      const profile = users.publicProfile(request.query.username.trim(), me);
      if (!profile) throw notFound(`There is no user named "${request.query.username}".`);
      return {
        username: profile.username,
        profilePictureUrl: pictureUrl(profile.pictureKey),
        // Anonymous posts are neither listed nor counted here, even for the user themself.
        postCount: profile.publicPostCount,
        followerCount: profile.followerCount,
        followingCount: profile.followingCount,
        isFollowing: profile.isFollowing === 1,
        isBlocked: profile.isBlocked === 1,
        // Someone the viewer blocked shows as blocked, with nothing of theirs listed until unblocked.
        posts: profile.isBlocked === 1 ? [] : postViews(posts.publicPosts(profile.id, request.user, before, request.query.limit), me),
      };
    },
  );
};

export default feedRoutes;
