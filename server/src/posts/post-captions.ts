import type Database from 'better-sqlite3';

/** A caption written: a post made, or its caption changed by an edit. */
export interface CaptionWrite {
  postId: number;
  /** The post's author. */
  userId: number;
  isAnonymous: boolean;
  caption: string;
  /** When (ms): the post's created_at, or the edit's time. */
  at: number;
  /** True for a new post, false for an edit. */
  created: boolean;
  /**
   * A post of someone on another server, received by federation: its `@name`s are theirs, which
   * name no one here (federation/remote-posts.ts), so it mentions nobody.
   */
  fromAnotherServer?: boolean;
}

/** What a listener gives back: the usernames its caption mentions, kept on the post row (posts.mentions). */
export type CaptionListener = (write: CaptionWrite) => { mentions?: string[] } | void;

/**
 * Who hears of a caption as it is written, inside the write's transaction: hashtags/ (its tags)
 * and social/ (its mentions) register here from their plugins, so posts/ imports neither
 * (docs/architecture.md, "adding hashtags"). A listener that throws rolls the write back.
 */
export function createPostCaptions(sqlite: Database.Database) {
  const listeners: CaptionListener[] = [];
  const setMentions = sqlite.prepare<[string | null, number]>('UPDATE posts SET mentions = ? WHERE id = ?');
  return {
    listen(listener: CaptionListener): void {
      listeners.push(listener);
    },
    /** Called by the post's write, in its transaction; gives posts.mentions as it now stands. */
    written(write: CaptionWrite): string | null {
      let mentions: string[] | undefined;
      for (const listener of listeners) mentions = listener(write)?.mentions ?? mentions;
      const json = mentions !== undefined && mentions.length > 0 ? JSON.stringify(mentions) : null;
      // A new post without mentions keeps the column's NULL: no write.
      if (mentions !== undefined && (json !== null || !write.created)) setMentions.run(json, write.postId);
      return json;
    },
  };
}

export type PostCaptions = ReturnType<typeof createPostCaptions>;
