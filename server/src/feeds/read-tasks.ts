import type { Keyset } from '../kernel/paging.js';
import { createPageWriter } from '../posts/page-json.js';
import type { PostsRepository } from '../posts/posts-repository.js';
import type { TagPages } from '../hashtags/hashtags-repository.js';

/** The reads that may run off the request thread, and what each one needs. */
export interface ReadTaskArgs {
  discover: { viewer: number; blockCount: number; blocksVersion?: number; before: Keyset; limit: number };
  following: { viewer: number; blockCount: number; blocksVersion?: number; followingCount: number; before: Keyset; limit: number };
  /** A tag's page (hashtags/): `tag` normalised (contract/entities.ts). */
  tag: { tag: string; viewer: number; blockCount: number; blocksVersion?: number; before: Keyset; limit: number };
}

export type ReadTask = keyof ReadTaskArgs;

/** What the request thread sends a read worker, in batches (read-pool.ts), and what comes back for each. */
export interface ReadCall {
  id: number;
  task: ReadTask;
  args: unknown;
}
export type ReadReply = { id: number; body: Uint8Array } | { id: number; error: string };

/** Each task gives its page as JSON text in ASCII only (posts/page-json.ts). */
export type ReadTasks = { [K in ReadTask]: (args: ReadTaskArgs[K]) => string };

/**
 * Feed pages from query to JSON text on one connection's repository: the SQL, then
 * the Posts schema's JSON written by the page writer (posts/page-json.ts; anonymity by the
 * rules of views.ts). Runs the same in a read worker and inline on the
 * request thread.
 */
export function createReadTasks(posts: PostsRepository, tags: TagPages): ReadTasks {
  const write = createPageWriter();
  return {
    discover: ({ viewer, blockCount, blocksVersion, before, limit }) =>
      write(posts.discover({ id: viewer, blockCount, blocksVersion }, before, limit), viewer),
    following: ({ viewer, blockCount, blocksVersion, followingCount, before, limit }) =>
      write(posts.following({ id: viewer, blockCount, blocksVersion }, followingCount, before, limit), viewer),
    tag: ({ tag, viewer, blockCount, blocksVersion, before, limit }) =>
      write(tags.page(tag, { id: viewer, blockCount, blocksVersion }, before, limit), viewer),
  };
}
