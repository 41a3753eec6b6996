import fp from 'fastify-plugin';
import { createHashtagsRepository, createTagPages, type HashtagsRepository, type TagPages } from './hashtags-repository.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Posts' hashtags and the search of tags (hashtags-repository.ts). */
    hashtags: HashtagsRepository;
    /** Tag pages on the request thread's connection (the read pool runs them on its own: feeds/read-tasks.ts). */
    tagPages: TagPages;
  }
}

/** Hashtags: a post's tags, kept as its caption is written (posts' caption listeners), tag pages and tag search. */
export default fp(
  async (fastify) => {
    const { sqlite } = fastify.database;
    const hashtags = createHashtagsRepository(sqlite);
    fastify.postCaptions.listen((write) => hashtags.tag(write));
    fastify.decorate('hashtags', hashtags);
    fastify.decorate('tagPages', createTagPages(sqlite, fastify.posts));
  },
  { name: 'hashtags', dependencies: ['kernel', 'posts'] },
);
