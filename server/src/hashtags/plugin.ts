import fp from 'fastify-plugin';
import { createHashtagsRepository, type HashtagsRepository } from './hashtags-repository.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Posts' hashtags and the search of tags (hashtags-repository.ts). */
    hashtags: HashtagsRepository;
  }
}

/**
 * Hashtags: a post's tags, kept as its caption is written (posts' caption listeners), and tag
 * search. Tag pages are read by the read pool (feeds/read-tasks.ts builds createTagPages on each
 * connection), like Discover.
 */
export default fp(
  async (fastify) => {
    const { sqlite } = fastify.database;
    const hashtags = createHashtagsRepository(sqlite);
    fastify.postCaptions.listen((write) => hashtags.tag(write));
    fastify.decorate('hashtags', hashtags);
  },
  { name: 'hashtags', dependencies: ['kernel', 'posts'] },
);
