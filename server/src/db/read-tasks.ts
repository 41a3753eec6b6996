import fastJson from 'fast-json-stringify';
import type { Keyset } from '../domain/paging.js';
import type { PostsRepository } from '../domain/posts-repository.js';
import { Posts } from '../routes/api-schemas.js';

/** The reads that may run off the request thread, and what each one needs. */
export interface ReadTaskArgs {
  discover: { viewer: number; before: Keyset; limit: number };
  following: { viewer: number; followingCount: number; before: Keyset; limit: number };
}

export type ReadTask = keyof ReadTaskArgs;

export type ReadTasks = { [K in ReadTask]: (args: ReadTaskArgs[K]) => string };

/**
 * Feed pages from query to JSON text on one connection's repository: the SQL, the mapping to
 * the API's shape (anonymity is decided in postView, as everywhere) and the
 * serialization with the route's own response schema. Runs the same in a read
 * worker and inline on the request thread.
 */
export function createReadTasks(posts: PostsRepository): ReadTasks {
  const postsJson = fastJson(Posts);
  return {
    discover: ({ viewer, before, limit }) => postsJson(posts.discover(viewer, before, limit)),
    following: ({ viewer, followingCount, before, limit }) => postsJson(posts.following(viewer, followingCount, before, limit)),
  };
}
