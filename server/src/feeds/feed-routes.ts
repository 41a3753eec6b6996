import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { NEWEST, parseCursor } from '../kernel/paging.js';
import type { OwnProfileView, UserProfileView } from '../contract/api-shapes.js';
import { pictureUrl, type PostPage } from '../kernel/views.js';
import { notFound } from '../kernel/errors.js';
import { createPageWriter } from '../posts/page-json.js';
import { errors, OwnProfile, PageQuery, Posts, UserProfile } from '../kernel/route-schemas.js';

/** Discover, the following feed, the caller's own profile and other people's profiles. */
const feedRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { posts, reads, users } = fastify;
  // The read tasks give the Posts schema's JSON (posts/page-json.ts); the text is sent as it is.
  const json = (reply: FastifyReply, text: string | Buffer) => reply.type('application/json; charset=utf-8').send(text);
  // Profiles' posts are written by the same page writer as the feeds' (on this thread, with its own kept fragments):
  // the profile's other fields, in the schema's order, then the page.
  const write = createPageWriter();
  const profile = <T extends { posts: unknown }>(reply: FastifyReply, head: Omit<T, 'posts'>, page: PostPage | null, viewer: number) =>
    json(reply, `${JSON.stringify(head).slice(0, -1)},"posts":${page === null ? '[]' : write(page, viewer)}}`);

  fastify.get(
    '/discover-posts',
    { schema: { querystring: PageQuery, response: { 200: Posts, ...errors } } },
    async (request, reply) =>
      json(
        reply,
        await reads.run('discover', {
          viewer: request.user.id,
          blockCount: request.user.blockCount,
          blocksVersion: request.user.blocksVersion,
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
          blocksVersion: request.user.blocksVersion,
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
    async (request, reply) => {
      const me = request.user.id;
      const before = parseCursor(request.query.cursor, NEWEST);
      const own = users.ownProfile(me);
      if (!own) throw notFound('Your account does not exist.');
      return profile<OwnProfileView>(reply, {
        username: own.username,
        email: own.email,
        profilePictureUrl: pictureUrl(own.pictureKey),
        postCount: own.postCount,
        totalLikes: own.likesReceived,
        totalComments: own.commentsReceived,
        followerCount: own.followerCount,
        followingCount: own.followingCount,
        isPrivate: own.isPrivate === 1,
      }, posts.ownPosts(request.user, before, request.query.limit), me);
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
    async (request, reply) => {
      const me = request.user.id;
      const before = parseCursor(request.query.cursor, NEWEST);
      const other = users.publicProfile(request.query.username.trim(), me);
      if (!other) throw notFound(`There is no user named "${request.query.username}".`);
      // A private account's posts are for its followers and itself (docs/api.md, "Private accounts").
      const closed = other.isPrivate === 1 && other.isFollowing !== 1 && other.id !== me;
      return profile<UserProfileView>(reply, {
        username: other.username,
        profilePictureUrl: pictureUrl(other.pictureKey),
        // Anonymous posts are neither listed nor counted here, even for the user themself.
        postCount: other.publicPostCount,
        followerCount: other.followerCount,
        followingCount: other.followingCount,
        isFollowing: other.isFollowing === 1,
        isBlocked: other.isBlocked === 1,
        isPrivate: other.isPrivate === 1,
        isRequested: other.isRequested === 1,
        // Someone the viewer blocked shows as blocked, with nothing of theirs listed until unblocked.
      }, other.isBlocked === 1 || closed ? null : posts.publicPosts(other.id, request.user, before, request.query.limit), me);
    },
  );
};

export default feedRoutes;
