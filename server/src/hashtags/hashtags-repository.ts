import type Database from 'better-sqlite3';
import { arrayRows, limitBy } from '../kernel/db/rows.js';
import type { Keyset } from '../kernel/paging.js';
import type { PostRow } from '../kernel/views.js';
import { tagsOf } from '../contract/entities.js';
import type { CaptionWrite } from '../posts/post-captions.js';
import { LISTED_SEEN, POST_COLUMNS, type PageParams, type PostsRepository, type Viewer } from '../posts/posts-repository.js';

/** Most tags a search answers with. */
export const TAG_SEARCH_LIMIT = 20;

export interface TagMatch {
  tag: string;
  postCount: number;
}

/**
 * A post's hashtags (post_hashtags, migration 0027), written in the caption's transaction
 * (posts/post-captions.ts), and the search of tags by prefix over the counts the table's
 * triggers keep (hashtags). Removing a post takes its rows by cascade.
 */
export function createHashtagsRepository(sqlite: Database.Database) {
  const ofPost = sqlite.prepare<[number], { tag: string; createdAt: number }>(
    'SELECT tag, created_at AS createdAt FROM post_hashtags WHERE post_id = ?',
  );
  const insert = sqlite.prepare<[string, number, number]>('INSERT INTO post_hashtags (tag, post_id, created_at) VALUES (?, ?, ?)');
  const remove = sqlite.prepare<[string, number, number]>('DELETE FROM post_hashtags WHERE tag = ? AND created_at = ? AND post_id = ?');
  const createdAt = sqlite.prepare<[number], number>('SELECT created_at FROM posts WHERE id = ?').pluck();
  // A range of the primary key (tag text in binary order), then the busiest first.
  const byPrefix = sqlite.prepare<{ from: string; to: string; limit: number }, TagMatch>(`
    SELECT tag, post_count AS postCount FROM hashtags WHERE tag >= @from AND tag < @to
    ORDER BY post_count DESC, tag ${limitBy('@limit')}`);

  return {
    /**
     * The post's tags made what its caption says now: an edit's new tags added, those it
     * dropped removed, the others untouched. A row's created_at is the post's (its place on the page).
     */
    tag(write: CaptionWrite): void {
      const now = new Set(tagsOf(write.caption));
      const had = write.created ? [] : ofPost.all(write.postId);
      for (const row of had) {
        if (!now.has(row.tag)) remove.run(row.tag, row.createdAt, write.postId);
        now.delete(row.tag);
      }
      if (now.size === 0) return;
      const at = write.created ? write.at : (createdAt.get(write.postId) ?? write.at);
      for (const tag of now) insert.run(tag, write.postId, at);
    },
    /** Tags starting with `prefix` (normalised), the busiest first, with how many posts carry each. */
    search(prefix: string, limit = TAG_SEARCH_LIMIT): TagMatch[] {
      // The first string after every one that starts with prefix: its last code unit plus one.
      const to = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
      return byPrefix.all({ from: prefix, to, limit });
    },
  };
}

export type HashtagsRepository = ReturnType<typeof createHashtagsRepository>;

/**
 * Tag pages, read like Discover (posts.listed: blocks, the first comments, one snapshot): one
 * range of post_hashtags' primary key (tag, created_at, post_id) newest first (the keyset in the
 * shape posts-repository.ts's BEFORE explains), each post joined
 * and left out when hidden (its author suspended) or private to the viewer (or its author limited: LISTED_SEEN). Built on any
 * connection: the read workers' (feeds/read-worker.ts) and the request thread's.
 */
export function createTagPages(sqlite: Database.Database, posts: PostsRepository) {
  const tagged = arrayRows<PageParams & { tag: string }, PostRow>(sqlite, `
    SELECT ${POST_COLUMNS}
    FROM post_hashtags t
    JOIN posts p ON p.id = t.post_id
    JOIN users u ON u.id = p.user_id
    WHERE t.tag = @tag AND t.created_at <= @ts AND (t.created_at < @ts OR t.post_id < @id) AND p.hidden = 0 AND ${LISTED_SEEN}
    ORDER BY t.created_at DESC, t.post_id DESC
    ${limitBy('@limit')}`);
  return {
    page: (tag: string, viewer: Viewer, before: Keyset, limit: number) =>
      posts.listed(viewer, (params) => tagged.all({ ...params, tag }), before, limit),
  };
}

export type TagPages = ReturnType<typeof createTagPages>;
