import type Database from 'better-sqlite3';
import { MUTED_ACTOR, SILENCED } from '../kernel/notification-rules.js';
import type { Shared } from '../kernel/shared.js';
import { textParts } from '../contract/entities.js';
import type { CaptionWrite } from '../posts/post-captions.js';
import type { PostsRepository } from '../posts/posts-repository.js';

/** Most different people one caption or comment notifies; names past them stay plain text. */
export const MENTION_MAX = 20;

interface Person {
  id: number;
  username: string;
}

/** What a text names: local people who exist (their usernames' own case), and people on other servers. */
export interface Named {
  people: Person[];
  /** `@name@host`, as written (host lower-cased): ActivityPub's Mention.name, plain text until federation. */
  remote: string[];
}

/** Where a mention was written, by whom, and whether the notification may name them. */
interface Place {
  postId: number;
  commentId: number | null;
  userId: number;
  anonymous: boolean;
  at: number;
}

/**
 * Mentions (`@name`) in captions and comments, and the "mentioned you" notifications they make
 * (migration 0027's mentions table). They sit with social/'s other notifications: the
 * Notifications screen reads them beside likes, comments and follows
 * (notifications-repository.ts, kernel/notification-rules.ts), and their recipient's bell is
 * moved in the write's transaction by kernel/counters.ts. A mention rings nobody when it is
 * one's own name, or when a block by name stands between writer and recipient; the rows stay
 * (they are the post's ActivityPub tags) and the screen leaves them out by the same rule.
 */
export function createMentionsRepository(sqlite: Database.Database, { counters }: Shared, posts: PostsRepository) {
  // users_username_nocase_unique: one probe a name.
  const person = sqlite.prepare<[string], Person>(
    'SELECT id, username FROM users WHERE username = ? COLLATE NOCASE AND deleted_at IS NULL',
  );
  const insert = sqlite.prepare<{ post: number; comment: number | null; user: number; mentioned: number | null; name: string; recipient: number | null; anonymous: number; at: number }>(`
    INSERT INTO mentions (post_id, comment_id, user_id, mentioned_id, name, recipient_id, anonymous, created_at)
    VALUES (@post, @comment, @user, @mentioned, @name, @recipient, @anonymous, @at)`);
  const ofCaption = sqlite.prepare<[number], { id: number; mentionedId: number | null; name: string }>(
    'SELECT id, mentioned_id AS mentionedId, name FROM mentions WHERE post_id = ? AND comment_id IS NULL',
  );
  const remove = sqlite.prepare<[string]>('DELETE FROM mentions WHERE id IN (SELECT value FROM json_each(?))');
  // A mention by a limited person the recipient does not follow notifies nobody (notification-rules.ts).
  const silenced = sqlite.prepare<{ actor: number; recipient: number }, number>(SILENCED).pluck();
  // A mention by someone of a server the recipient muted is kept but rings no bell (notification-rules.ts).
  const muted = sqlite.prepare<{ actor: number; recipient: number }, number>(MUTED_ACTOR).pluck();
  const ofAnotherServer = sqlite.prepare<[number], number>('SELECT host IS NOT NULL FROM users WHERE id = ?').pluck();

  /** The people and remote names a text mentions, each once, at most MENTION_MAX. */
  function named(text: string): Named {
    const people = new Map<number, Person>();
    const remote = new Set<string>();
    const tried = new Set<string>();
    for (const part of textParts(text)) {
      if (tried.size >= MENTION_MAX) break;
      if (part.kind === 'mention') {
        const key = part.username.toLowerCase();
        if (tried.has(key)) continue;
        tried.add(key);
        const found = person.get(part.username);
        if (found) people.set(found.id, found);
      } else if (part.kind === 'remote') {
        const name = `@${part.username}@${part.host}`;
        if (!tried.has(name.toLowerCase())) remote.add(name);
        tried.add(name.toLowerCase());
      }
    }
    return { people: [...people.values()], remote: [...remote] };
  }

  function record(place: Place, { people, remote }: Named): void {
    const row = { post: place.postId, comment: place.commentId, user: place.userId, anonymous: place.anonymous ? 1 : 0, at: place.at };
    for (const p of people) {
      const recipient = p.id === place.userId || silenced.get({ actor: place.userId, recipient: p.id }) !== undefined ? null : p.id;
      insert.run({ ...row, mentioned: p.id, name: `@${p.username}`, recipient });
      if (recipient !== null && !posts.blockedByNameEitherWay(place.userId, recipient) && muted.get({ actor: place.userId, recipient }) === undefined) {
        counters.mentioned(recipient, place.at);
      }
    }
    for (const name of remote) insert.run({ ...row, mentioned: null, name, recipient: null });
  }

  return {
    named,
    /**
     * A caption written (posts/post-captions.ts): a new post's mentions, or an edit's change to
     * them: those it added notify (at the edit's time), those it dropped are taken back, the
     * others stay as they were. Gives the usernames to keep on the post (posts.mentions).
     */
    caption(write: CaptionWrite): { mentions: string[] } {
      // A post of someone on another server (made, or edited there): its @names are theirs, not ours.
      if (write.fromAnotherServer || ofAnotherServer.get(write.userId) === 1) return { mentions: [] };
      const now = named(write.caption);
      const place = { postId: write.postId, commentId: null, userId: write.userId, anonymous: write.isAnonymous, at: write.at };
      if (write.created) {
        record(place, now);
        return { mentions: now.people.map((p) => p.username) };
      }
      const had = ofCaption.all(write.postId);
      const keep = new Set([...now.people.map((p) => `#${p.id}`), ...now.remote.map((n) => n.toLowerCase())]);
      const key = (m: { mentionedId: number | null; name: string }) => (m.mentionedId !== null ? `#${m.mentionedId}` : m.name.toLowerCase());
      const gone = had.filter((m) => !keep.has(key(m))).map((m) => m.id);
      if (gone.length > 0) {
        counters.mentionsForgotten(gone);
        remove.run(JSON.stringify(gone));
      }
      const known = new Set(had.map(key));
      record(place, {
        people: now.people.filter((p) => !known.has(`#${p.id}`)),
        remote: now.remote.filter((n) => !known.has(n.toLowerCase())),
      });
      return { mentions: now.people.map((p) => p.username) };
    },
    /** A comment written (comments-repository.ts, in its transaction), with what `named` found in it. */
    comment(place: Omit<Place, 'commentId'> & { commentId: number }, found: Named): void {
      record(place, found);
    },
    /** Before a comment is deleted (its mentions go by cascade): out of their recipients' bells. */
    commentRemoving(commentId: number): void {
      counters.commentMentionsRemoved(commentId);
    },
  };
}

export type MentionsRepository = ReturnType<typeof createMentionsRepository>;
