import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { NEWEST, parseCursor } from '../kernel/paging.js';
import { badRequest } from '../kernel/errors.js';
import { errors, PageQuery, Posts } from '../kernel/route-schemas.js';
import { TagMatches } from '../contract/answers.js';
import { normalizeTag, normalizeTagPrefix, TAG_MAX } from '../contract/entities.js';

/** The tag a path or a search names, or a 400 that says what a tag is. */
function tagOf(raw: string, prefix: boolean): string {
  const text = raw.trim().replace(/^[#＃]/, '');
  if ([...text.normalize('NFKC')].length > TAG_MAX) throw badRequest(`A tag is at most ${TAG_MAX} characters.`);
  const tag = prefix ? normalizeTagPrefix(text) : normalizeTag(text);
  if (tag === null) throw badRequest('A tag is letters, digits and _ only (in any script), and not digits only.');
  return tag;
}

/** A tag's page of posts (like Discover: newest first, keyset pages, on the read pool) and the search of tags by prefix. */
const hashtagRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { reads, hashtags } = fastify;
  // The Posts schema's JSON as the read task wrote it (posts/page-json.ts), sent as it is (as feeds/feed-routes.ts does).
  const json = (reply: FastifyReply, text: string | Buffer) => reply.type('application/json; charset=utf-8').send(text);

  fastify.get(
    '/hashtags/:tag',
    {
      schema: {
        params: Type.Object({ tag: Type.String({ minLength: 1, maxLength: 1000 }) }),
        querystring: PageQuery,
        response: { 200: Posts, ...errors },
      },
    },
    async (request, reply) => {
      const tag = tagOf(request.params.tag, false);
      const page = await reads.run('tag', {
        tag,
        viewer: request.user.id,
        blockCount: request.user.blockCount,
        blocksVersion: request.user.blocksVersion,
        before: parseCursor(request.query.cursor, NEWEST),
        limit: request.query.limit,
      });
      return json(reply, page);
    },
  );

  fastify.get(
    '/search-tags',
    {
      schema: {
        querystring: Type.Object({ tag: Type.String({ minLength: 1, maxLength: 1000 }) }),
        response: { 200: TagMatches, ...errors },
      },
    },
    async (request) => hashtags.search(tagOf(request.query.tag, true)),
  );
};

export default hashtagRoutes;
