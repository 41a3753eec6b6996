import type { Context, KvStore } from '@fedify/fedify';
import { Create, isActor, Note, traverseCollection } from '@fedify/vocab';
import type Database from 'better-sqlite3';
import { Temporal } from '@js-temporal/polyfill';
import { reachable } from './remote-actors.js';
import { isPublicNote, keepNote, type NoteKeeperDeps } from './remote-posts.js';

/** The newest posts of theirs looked at: a profile's first screen, not their history. */
const BACKFILL_ITEMS = 20;
/** How long a person's outbox is not read again after a read (kv key, with its expiry). */
const BACKFILL_EVERY = Temporal.Duration.from({ hours: 6 });
/** The whole read, with every page and photo: past it, what was kept stays and the rest waits for the next time. */
const BACKFILL_TIMEOUT_MS = 60_000;

export interface BackfillDeps extends NoteKeeperDeps {
  sqlite: Database.Database;
  kv: KvStore;
  /** The instance actor's identifier: its key signs the reads (servers with authorized fetch ask for one). */
  instanceActor: string;
}

/**
 * The recent public posts of someone on another server, read from their outbox when someone here
 * looks them up or follows them (issue 49, item 2: "the remote person's profile opens in the app
 * with their recent public posts"): without it their profile here would be empty until they post
 * again. At most BACKFILL_ITEMS items of the outbox's first pages, their public Notes with photos
 * kept as a delivered Create's are (remote-posts.ts, keepNote), at most once every BACKFILL_EVERY per person.
 * Runs in the background: a search answers without waiting for it.
 */
export function createBackfill(deps: BackfillDeps) {
  const actorOf = deps.sqlite.prepare<[string], { userId: number; uri: string }>(`
    SELECT a.user_id AS userId, a.uri AS uri FROM remote_actors a JOIN users u ON u.id = a.user_id
    WHERE u.username = ? AND u.host IS NOT NULL AND u.deleted_at IS NULL`);
  const actorById = deps.sqlite.prepare<[number], { userId: number; uri: string }>(
    'SELECT user_id AS userId, uri FROM remote_actors WHERE user_id = ?',
  );
  const running = new Set<number>();

  async function read(ctx: Context<void>, person: { userId: number; uri: string }): Promise<number> {
    const key = ['backfill', person.uri] as const;
    if ((await deps.kv.get(key)) !== undefined || running.has(person.userId)) return 0;
    running.add(person.userId);
    try {
      await deps.kv.set(key, Date.now(), { ttl: BACKFILL_EVERY });
      const signal = AbortSignal.timeout(BACKFILL_TIMEOUT_MS);
      const documentLoader = await ctx.getDocumentLoader({ identifier: deps.instanceActor });
      const loaders = { documentLoader, contextLoader: ctx.contextLoader };
      const actorId = new URL(person.uri);
      const actor = await ctx.lookupObject(actorId, { documentLoader, signal });
      if (!isActor(actor) || actor.id?.href !== actorId.href || !actor.outboxId) return 0;
      if (actor.outboxId.origin !== actorId.origin || !reachable(actor.outboxId, deps.allowedPrivateHosts)) return 0;
      const outbox = await actor.getOutbox({ ...loaders, suppressError: true });
      if (!outbox) return 0;
      const notes: Note[] = [];
      let seen = 0;
      for await (const item of traverseCollection(outbox, { ...loaders, suppressError: true })) {
        if (++seen > BACKFILL_ITEMS || signal.aborted) break;
        // Their own Creates only (a boost, a like, a reply is not a post of theirs to show).
        if (!(item instanceof Create) || item.actorId?.href !== actorId.href) continue;
        const note = await item.getObject({ ...loaders, suppressError: true });
        if (note instanceof Note && !note.replyTargetId && isPublicNote(note)) notes.push(note);
      }
      let kept = 0;
      // Oldest first, as they were posted.
      for (const note of notes.reverse()) {
        if (signal.aborted) break;
        if (await keepNote(note, actorId, person.userId, loaders, deps)) kept++;
      }
      return kept;
    } finally {
      running.delete(person.userId);
    }
  }

  const quietly = (ctx: Context<void>, person: { userId: number; uri: string } | undefined) => {
    if (!person) return;
    void read(ctx, person).catch((err: unknown) => deps.log.warn({ err, actor: person.uri }, "federation: a person's recent posts could not be read"));
  };

  return {
    /** Someone here found them by search (name@host as kept). */
    looked: (ctx: Context<void>, username: string) => quietly(ctx, actorOf.get(username)),
    /** Someone here asked to follow them. */
    followed: (ctx: Context<void>, userId: number) => quietly(ctx, actorById.get(userId)),
    /** For tests: reads now and answers how many posts were kept. */
    read: (ctx: Context<void>, userId: number) => {
      const person = actorById.get(userId);
      return person ? read(ctx, person) : Promise.resolve(0);
    },
  };
}
