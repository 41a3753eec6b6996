import type { Keyset } from '../domain/paging.js';
import { createPageWriter } from './page-json.js';
import type { PostsRepository } from '../domain/posts-repository.js';

/** The reads that may run off the request thread, and what each one needs. */
export interface ReadTaskArgs {
  discover: { viewer: number; before: Keyset; limit: number };
  following: { viewer: number; followingCount: number; before: Keyset; limit: number };
}

export type ReadTask = keyof ReadTaskArgs;

/** Each task gives its page as JSON text in ASCII only (page-json.ts). */
export type ReadTasks = { [K in ReadTask]: (args: ReadTaskArgs[K]) => string };

/**
 * Feed pages from query to JSON text on one connection's repository: the SQL, then
 * the Posts schema's JSON written by the page writer (anonymity decided by the
 * same rules as postView's). Runs the same in a read worker and inline on the
 * request thread.
 */
export function createReadTasks(posts: PostsRepository): ReadTasks {
  const write = createPageWriter();
  return {
    discover: ({ viewer, before, limit }) => write(posts.discover(viewer, before, limit), viewer),
    following: ({ viewer, followingCount, before, limit }) => write(posts.following(viewer, followingCount, before, limit), viewer),
  };
}
