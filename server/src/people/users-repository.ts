import type Database from 'better-sqlite3';
import { limitBy } from '../kernel/db/rows.js';
import { LruMap } from '../kernel/lru.js';
import type { Admission } from '../registration/registration-service.js';
import { cleanText } from '../kernel/text.js';

export interface AuthUser {
  id: number;
  sub: string;
  username: string;
  email: string | null;
  /** As of this request's start; picks the following feed's plan (posts-repository.ts). */
  followingCount: number;
  /** Blocks this user is part of either way; 0 picks the feed plans without block checks. */
  blockCount: number;
  /** Moves with every change to a block this user is part of: a read worker's cached block sets are good while it stands. */
  blocksVersion: number;
  /** Set while an operator has suspended the account: the API refuses it (people/plugin.ts). */
  suspendedAt: number | null;
  /** 'pending' while the account waits for an operator, 'rejected' once declined (registration/registration-service.ts). */
  joinState: 'pending' | 'rejected' | null;
}

interface UserRow extends AuthUser {
  deletedAt: number | null;
}

/** The caller's own profile, with every counter (anonymous posts included). */
export interface OwnProfileRow {
  username: string;
  email: string | null;
  pictureKey: string | null;
  postCount: number;
  likesReceived: number;
  commentsReceived: number;
  followerCount: number;
  followingCount: number;
  isPrivate: number;
}

/** Another user's profile as anyone may see it: the post count leaves anonymous posts out. */
export interface PublicProfileRow {
  id: number;
  username: string;
  pictureKey: string | null;
  publicPostCount: number;
  followerCount: number;
  followingCount: number;
  isFollowing: number;
  isBlocked: number;
  /** A private account (docs/api.md, "Private accounts"). */
  isPrivate: number;
  /** The viewer's follow request waits for this account's answer. */
  isRequested: number;
}

export interface ProfileMatch {
  id: number;
  username: string;
  pictureKey: string | null;
}

const PLAIN_NAME = /^[\x21-\x7e]+$/;

/** A provider's name without hidden characters, NFC, marks limited; 'Beer Lover' when nothing is left. */
function cleanName(name: string): string {
  const cleaned = cleanText(name).replace(/[\u200C\u200D]/g, '').trim();
  return cleaned === '' ? 'Beer Lover' : cleaned;
}

/** Most profiles a search answers with. */
export const SEARCH_LIMIT = 50;

/** SQLite's NOCASE order: ASCII letters folded, then code units compared. */
const compareNoCase = (a: string, b: string) => {
  const x = asciiLower(a);
  const y = asciiLower(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** Escapes LIKE wildcards so `%` and `_` in a search term match themselves. */
export const escapeLike = (term: string) => term.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The smallest string above every string starting with `prefix` in SQLite's
 * NOCASE order (bytes of UTF-8 with ASCII A-Z folded to a-z), or null when there
 * is none. `prefix` must already be ASCII-lowercased.
 */
export function prefixUpperBound(prefix: string): string | null {
  const points = Array.from(prefix);
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    let next = last + 1;
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000; // surrogates are not characters
    if (next >= 0x41 && next <= 0x5a) next = 0x5b; // A-Z fold to a-z, so after '@' comes '['
    if (next <= 0x10ffff) return points.join('') + String.fromCodePoint(next);
  }
  return null;
}

const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** A quoted FTS5 string: every character literal, double quotes doubled. */
const ftsQuote = (text: string) => `"${text.replace(/"/g, '""')}"`;

/** How long a trigram's document count is trusted; it only steers the search plan, never its answer. */
const TRIGRAM_COUNT_TTL_MS = 10 * 60_000;
const TRIGRAM_CACHE_MAX = 50_000;

/**
 * How many names contain each trigram (from users_fts through an fts5vocab
 * table), remembered for TRIGRAM_COUNT_TTL_MS: counting one costs 50-200 µs.
 * `rarest` picks the `n` least common trigrams of an ASCII term with more than
 * `n` of them, or null when the full phrase should be used instead.
 */
export function createTrigramFrequencies(sqlite: Database.Database, now: () => number = Date.now) {
  sqlite.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.users_fts_vocab USING fts5vocab(main, users_fts, 'row')`);
  const docCount = sqlite.prepare<[string], number>('SELECT doc FROM temp.users_fts_vocab WHERE term = ?').pluck();
  const cache = new Map<string, { docs: number; until: number }>();
  const count = (trigram: string) => {
    const at = now();
    const hit = cache.get(trigram);
    if (hit && hit.until > at) return hit.docs;
    if (cache.size >= TRIGRAM_CACHE_MAX) cache.clear();
    const docs = docCount.get(trigram) ?? 0;
    cache.set(trigram, { docs, until: at + TRIGRAM_COUNT_TTL_MS });
    return docs;
  };
  return {
    rarest(term: string, n: number): string[] | null {
      // The index folds case with Unicode rules; LIKE, which checks the result, folds ASCII only.
      if (!/^[\x20-\x7e]*$/.test(term)) return null;
      const lower = asciiLower(term);
      const all = new Set<string>();
      for (let i = 0; i + 3 <= lower.length; i++) all.add(lower.slice(i, i + 3));
      if (all.size <= n) return null;
      return [...all]
        .map((t) => ({ t, docs: count(t) }))
        .sort((a, b) => a.docs - b.docs)
        .slice(0, n)
        .map((x) => x.t);
    },
  };
}

/** Users kept by sub for authentication, per repository; the least recently seen is dropped first. */
export const USER_CACHE_MAX = 10_000;
/** How often commits by other connections are looked for (PRAGMA data_version); each one empties the cache. */
export const USER_CACHE_RECHECK_MS = 1000;

type UserChange = { sub: string; followingCount: number | null };
const userListeners = new WeakMap<Database.Database, Set<(change: UserChange) => void>>();

/**
 * Calls `listener` for each change this connection makes to a users row's sub, name,
 * email, deletion, suspension, block count or following_count (or its deletion), inside the writing statement.
 * TEMP triggers: they exist on this connection only, so other processes' connections
 * (a CLI, the sqlite3 shell) need no function of ours; their commits are seen through
 * PRAGMA data_version instead. One SQL function per connection, whatever the listeners.
 */
function onUserChange(sqlite: Database.Database, listener: (change: UserChange) => void) {
  let listeners = userListeners.get(sqlite);
  if (!listeners) {
    const set = new Set<(change: UserChange) => void>();
    userListeners.set(sqlite, (listeners = set));
    sqlite.function('shower_beer_user_changed', { varargs: false }, (sub: unknown, followingCount: unknown) => {
      const change = { sub: String(sub), followingCount: typeof followingCount === 'number' ? followingCount : null };
      for (const l of set) l(change);
      return null;
    });
    sqlite.exec(`
      CREATE TEMP TRIGGER IF NOT EXISTS users_cache_update AFTER UPDATE OF sub, username, email, deleted_at, suspended_at, block_count, blocks_version, join_state ON main.users BEGIN
        SELECT shower_beer_user_changed(old.sub, NULL);
        SELECT shower_beer_user_changed(new.sub, NULL);
      END;
      CREATE TEMP TRIGGER IF NOT EXISTS users_cache_following AFTER UPDATE OF following_count ON main.users BEGIN
        SELECT shower_beer_user_changed(new.sub, new.following_count);
      END;
      CREATE TEMP TRIGGER IF NOT EXISTS users_cache_delete AFTER DELETE ON main.users BEGIN
        SELECT shower_beer_user_changed(old.sub, NULL);
      END;`);
  }
  listeners.add(listener);
}

/**
 * Upserts API users from verified token claims. Prepared once; called on every
 * authenticated request, so the common case (known user, same claims) is answered
 * from memory: the row as last read, dropped the moment this connection changes it
 * (a rename, a deletion) and whenever another connection has committed (checked at
 * most every USER_CACHE_RECHECK_MS). Profiled under the bench's write load, the row
 * read was 15% of the request thread's time (the first statement of each request).
 */
export function createUsersRepository(sqlite: Database.Database) {
  const bySub = sqlite.prepare<[string], UserRow>(
    `SELECT id, sub, username, email, following_count AS followingCount, block_count AS blockCount, blocks_version AS blocksVersion,
       suspended_at AS suspendedAt, join_state AS joinState, deleted_at AS deletedAt FROM users WHERE sub = ?`,
  );
  const nameTaken = sqlite.prepare<[string, string], { id: number }>(
    'SELECT id FROM users WHERE username = ? COLLATE NOCASE AND sub <> ?',
  );
  // A pending account is also held like a suspended one (suspended_at), so every read that hides those hides it.
  const insert = sqlite.prepare<[string, string, string | null, number, string | null, string | null, number | null, number | null], { id: number }>(
    `INSERT INTO users (sub, username, email, created_at, join_state, join_reason, invite_id, suspended_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const update = sqlite.prepare<[string, string | null, number]>('UPDATE users SET username = ?, email = ? WHERE id = ?');

  /** A name nobody else uses: the wanted one, or it with the lowest free numeric suffix. */
  function freeUsername(wanted: string, sub: string): string {
    if (!nameTaken.get(wanted, sub)) return wanted;
    for (let i = 2; ; i++) {
      const candidate = `${wanted.slice(0, 60)}${i}`;
      if (!nameTaken.get(candidate, sub)) return candidate;
    }
  }

  // A deleted account's row keeps its sub until a sign-in newer than the deletion: then the sub
  // moves to the tombstone ("~removed-<id>:<sub>", never a provider's) and a new row takes it.
  const releaseSub = sqlite.prepare<[number]>(`UPDATE users SET sub = '~removed-' || id || ':' || sub WHERE id = ?`);

  const upsert = sqlite.transaction((sub: string, username: string, email: string | null, issuedAt: number | null, admit?: () => Admission): UserRow => {
    let existing = bySub.get(sub);
    if (existing && existing.deletedAt !== null) {
      // With an outside provider (Keycloak) the person's sign-in account outlives "Delete account":
      // a token issued after the deletion starts a new, empty account; one from before stays refused.
      if (issuedAt === null || issuedAt <= existing.deletedAt) return existing;
      releaseSub.run(existing.id);
      existing = undefined;
    }
    if (!existing) {
      // The registration mode's say (registration/registration-service.ts); a refusal throws and nothing is written.
      const admission = admit?.() ?? { joinState: null, joinReason: null, inviteId: null };
      const name = freeUsername(username, sub);
      const at = Date.now();
      const suspendedAt = admission.joinState === null ? null : at;
      const { id } = insert.get(sub, name, email, at, admission.joinState, admission.joinReason, admission.inviteId, suspendedAt)!;
      return { id, sub, username: name, email, followingCount: 0, blockCount: 0, blocksVersion: 0, suspendedAt, joinState: admission.joinState, deletedAt: null };
    }
    if (existing.username !== username || existing.email !== email) {
      const name = existing.username.toLowerCase() === username.toLowerCase() ? username : freeUsername(username, sub);
      update.run(name, email, existing.id);
      return { ...existing, username: name, email };
    }
    return existing;
  });

  const ownProfile = sqlite.prepare<[number], OwnProfileRow>(`
    SELECT username, email, profile_picture_key AS pictureKey, post_count AS postCount,
      likes_received AS likesReceived, comments_received AS commentsReceived,
      follower_count AS followerCount, following_count AS followingCount, is_private AS isPrivate
    FROM users WHERE id = ?`);
  // A suspended account has no profile; a block by name either way decides what the viewer is
  // shown (isBlocked: the viewer blocked them by name; hiddenFromViewer: they blocked the viewer
  // by name, or the viewer blocked them on an anonymous post before blocks named the post, a
  // block that must not name them). A block of one anonymous post's author (post_id set) changes
  // nothing here, either way: a profile that vanished would name the post's author.
  const publicProfile = sqlite.prepare<{ viewer: number; name: string }, PublicProfileRow & { hiddenFromViewer: number }>(`
    SELECT u.id, u.username, u.profile_picture_key AS pictureKey, u.public_post_count AS publicPostCount,
      u.follower_count AS followerCount, u.following_count AS followingCount,
      EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = @viewer AND f.followee_id = u.id) AS isFollowing,
      EXISTS (SELECT 1 FROM blocks b WHERE b.blocked_id = u.id AND b.blocker_id = @viewer AND b.post_id IS NULL
        AND b.via_anonymous_post = 0) AS isBlocked,
      u.is_private AS isPrivate,
      EXISTS (SELECT 1 FROM follow_requests r WHERE r.target_id = u.id AND r.requester_id = @viewer) AS isRequested,
      (EXISTS (SELECT 1 FROM blocks b WHERE b.blocked_id = @viewer AND b.blocker_id = u.id AND b.post_id IS NULL)
        OR EXISTS (SELECT 1 FROM blocks b WHERE b.blocked_id = u.id AND b.blocker_id = @viewer AND b.post_id IS NULL
          AND b.via_anonymous_post = 1)) AS hiddenFromViewer
    FROM users u WHERE u.username = @name COLLATE NOCASE AND u.deleted_at IS NULL AND u.suspended_at IS NULL`);
  // Everyone a viewer with blocks must not find: blocked by them by name or blocking them by name.
  const blockedEitherWay = sqlite.prepare<{ viewer: number }, number>(`
    SELECT blocked_id FROM blocks WHERE blocker_id = @viewer AND post_id IS NULL
    UNION SELECT blocker_id FROM blocks WHERE blocked_id = @viewer AND post_id IS NULL`).pluck();
  // The servers @viewer muted (moderation/server-mutes-repository.ts): their people are not found by a search term.
  const mutedHosts = sqlite.prepare<{ viewer: number }, string>('SELECT host FROM server_mutes WHERE user_id = @viewer').pluck();
  // A person of a limited server (users.limited, federation/domain-blocks.ts) is found only by their
  // followers: a term on the row each statement already reads, the follows probe only for them.
  const notLimited = (u: string) => `(${u}.limited = 0 OR EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = @viewer AND f.followee_id = ${u}.id))`;
  // Prefix matches walk users_username_nocase_unique as a range; the rest is a
  // substring scan run only when the prefix part leaves room.
  const prefixMatches = sqlite.prepare<{ from: string; to: string; viewer: number; limit: number }, ProfileMatch>(`
    SELECT id, username, profile_picture_key AS pictureKey FROM users
    WHERE username >= @from COLLATE NOCASE AND username < @to COLLATE NOCASE AND deleted_at IS NULL AND suspended_at IS NULL
      AND ${notLimited('users')}
    ORDER BY username COLLATE NOCASE ${limitBy('@limit')}`);
  const prefixMatchesOpen = sqlite.prepare<{ from: string; viewer: number; limit: number }, ProfileMatch>(`
    SELECT id, username, profile_picture_key AS pictureKey FROM users
    WHERE username >= @from COLLATE NOCASE AND deleted_at IS NULL AND suspended_at IS NULL AND ${notLimited('users')}
    ORDER BY username COLLATE NOCASE ${limitBy('@limit')}`);
  // Terms of 3+ characters: the trigram index (users_fts) finds names containing
  // the term without a scan; shorter terms (no trigram) fall back to LIKE.
  const containsMatches = sqlite.prepare<{ match: string; notPrefix: string; viewer: number; limit: number }, ProfileMatch>(`
    SELECT u.id, u.username, u.profile_picture_key AS pictureKey FROM users_fts
    JOIN users u ON u.id = users_fts.rowid
    WHERE users_fts MATCH @match AND NOT (u.username LIKE @notPrefix ESCAPE '\\') AND u.deleted_at IS NULL AND u.suspended_at IS NULL
      AND ${notLimited('u')}
    ${limitBy('@limit')}`);
  // Long ASCII terms: FTS5 reads the whole posting list of every trigram of a
  // phrase, so "salty_shower962" (13 trigrams, some in 10 000+ names) cost 1.9 ms
  // at 100 000 users. The two rarest trigrams narrow it to a few names (50-130 µs)
  // and LIKE checks the whole term (ASCII case folding, as the index's).
  const rareTrigramMatches = sqlite.prepare<{ match: string; like: string; notPrefix: string; viewer: number; limit: number }, ProfileMatch>(`
    SELECT u.id, u.username, u.profile_picture_key AS pictureKey FROM users_fts
    JOIN users u ON u.id = users_fts.rowid
    WHERE users_fts MATCH @match AND u.username LIKE @like ESCAPE '\\' AND NOT (u.username LIKE @notPrefix ESCAPE '\\')
      AND u.deleted_at IS NULL AND u.suspended_at IS NULL AND ${notLimited('u')}
    ${limitBy('@limit')}`);
  const trigrams = createTrigramFrequencies(sqlite);
  // One name exactly (any case): a person asked for by name@host is found, limited or not.
  const exactMatch = sqlite.prepare<[string], ProfileMatch>(`
    SELECT id, username, profile_picture_key AS pictureKey FROM users
    WHERE username = ? COLLATE NOCASE AND deleted_at IS NULL AND suspended_at IS NULL`);
  const substringMatches = sqlite.prepare<{ like: string; notPrefix: string; viewer: number; limit: number }, ProfileMatch>(`
    SELECT id, username, profile_picture_key AS pictureKey FROM users
    WHERE username LIKE @like ESCAPE '\\' AND NOT (username LIKE @notPrefix ESCAPE '\\') AND deleted_at IS NULL AND suspended_at IS NULL
      AND ${notLimited('users')}
    ORDER BY username COLLATE NOCASE ${limitBy('@limit')}`);

  const known = new LruMap<string, UserRow>(USER_CACHE_MAX);
  // following_count changes in place: it only picks a plan, and every follow moves it.
  onUserChange(sqlite, ({ sub, followingCount }) => {
    const row = known.get(sub);
    if (row && followingCount !== null) row.followingCount = followingCount;
    else known.delete(sub);
  });
  const dataVersion = sqlite.prepare<[], number>('PRAGMA data_version').pluck();
  let seenVersion = dataVersion.get();
  let checkedAt = Date.now();

  function knownUser(sub: string): UserRow | undefined {
    const now = Date.now();
    if (now - checkedAt >= USER_CACHE_RECHECK_MS) {
      checkedAt = now;
      const version = dataVersion.get();
      if (version !== seenVersion) known.clear();
      seenVersion = version;
    }
    const kept = known.get(sub);
    if (kept) return kept;
    const row = bySub.get(sub);
    if (row) known.set(sub, row);
    return row;
  }

  /** `viewer` 0: nobody (follows no one), so limited people are not found. */
  function searchUpTo(term: string, limit: number, viewer: number): ProfileMatch[] {
    const prefix = asciiLower(term);
    const upper = prefixUpperBound(prefix);
    const first = upper === null ? prefixMatchesOpen.all({ from: prefix, viewer, limit }) : prefixMatches.all({ from: prefix, to: upper, viewer, limit });
    if (first.length >= limit) return first;
    const escaped = escapeLike(term);
    const room = limit - first.length;
    if (Array.from(term).length >= 3) {
      const rare = trigrams.rarest(term, 2);
      const rest = rare
        ? rareTrigramMatches.all({ match: rare.map(ftsQuote).join(' AND '), like: `%${escaped}%`, notPrefix: `${escaped}%`, viewer, limit: room })
        : containsMatches.all({ match: ftsQuote(term), notPrefix: `${escaped}%`, viewer, limit: room });
      rest.sort((a, b) => compareNoCase(a.username, b.username));
      return first.concat(rest);
    }
    return first.concat(substringMatches.all({ like: `%_${escaped}%`, notPrefix: `${escaped}%`, viewer, limit: room }));
  }

  return {
    findBySub: (sub: string) => bySub.get(sub),
    ownProfile: (id: number) => ownProfile.get(id),
    /**
     * A profile by name (any case), seen by `viewerId`; undefined if there is no such user
     * for this viewer: none, removed, suspended, or hidden from them by a block.
     */
    publicProfile(username: string, viewerId: number): PublicProfileRow | undefined {
      const row = publicProfile.get({ viewer: viewerId, name: username });
      if (!row || row.hiddenFromViewer === 1) return undefined;
      const { hiddenFromViewer: _hidden, ...profile } = row;
      return profile;
    },
    /**
     * Case-insensitive: names starting with `term` first, then names containing it; at most
     * SEARCH_LIMIT. Suspended accounts are never found, people of a limited server only by their
     * followers; for a viewer with blocks
     * (`viewer.blockCount` > 0), nobody they blocked or who blocked them either, and nobody of a
     * server they muted (their names end in `@host`, users.username).
     */
    search(term: string, viewer?: { id: number; blockCount: number }): ProfileMatch[] {
      if (!viewer || viewer.blockCount === 0) return searchUpTo(term, SEARCH_LIMIT, viewer?.id ?? 0);
      const hide = new Set(blockedEitherWay.all({ viewer: viewer.id }));
      const hosts = new Set(mutedHosts.all({ viewer: viewer.id }));
      const shown = (m: ProfileMatch) => {
        if (hide.has(m.id)) return false;
        const at = m.username.lastIndexOf('@');
        return at === -1 || !hosts.has(m.username.slice(at + 1).toLowerCase());
      };
      // A muted server may have any number of people matching: read on in growing steps until a
      // full answer is left, or there is nothing more to read.
      for (let limit = SEARCH_LIMIT + hide.size; ; limit *= 4) {
        const found = searchUpTo(term, limit, viewer.id);
        const kept = found.filter(shown);
        if (kept.length >= SEARCH_LIMIT || found.length < limit || hosts.size === 0) return kept.slice(0, SEARCH_LIMIT);
      }
    },
    /**
     * The profile named exactly `username` (any case), for a search that asked for that person
     * (name@host): found even when their server is limited, as Mastodon finds a silenced account
     * by its full handle; a viewer with blocks does not find someone on the other side of one.
     */
    exactMatch(username: string, viewer: { id: number; blockCount: number }): ProfileMatch | undefined {
      const match = exactMatch.get(username);
      if (!match || (viewer.blockCount > 0 && blockedEitherWay.all({ viewer: viewer.id }).includes(match.id))) return undefined;
      return match;
    },
    /**
     * Returns the user for these claims, creating or renaming as needed;
     * `null` when the account was deleted. `admit` decides how a new row starts, or refuses it
     * by throwing (the registration mode, registration/registration-service.ts); without it (npm run
     * user:add) the row is a member's.
     */
    upsertFromClaims(sub: string, claimedName: string, email: string | null, issuedAtSeconds?: number, admit?: () => Admission): AuthUser | null {
      // "~" starts the subs this server makes itself (a removed account's tombstone, a person of
      // another server: federation/remote-actors.ts), never a provider's: such a token signs no one in.
      if (sub.startsWith('~')) return null;
      // Names from another provider may carry hidden characters: shown without them (kernel/text.ts).
      const username = PLAIN_NAME.test(claimedName) ? claimedName : cleanName(claimedName);
      // In ms, rounded down to the token's second: a token from the second of a deletion counts as older.
      const issuedAt = typeof issuedAtSeconds === 'number' && Number.isFinite(issuedAtSeconds) ? issuedAtSeconds * 1000 : null;
      const known = knownUser(sub);
      if (known && known.username === username && known.email === email) {
        if (known.deletedAt === null) {
          return {
            id: known.id,
            sub,
            username,
            email,
            followingCount: known.followingCount,
            blockCount: known.blockCount,
            blocksVersion: known.blocksVersion,
            suspendedAt: known.suspendedAt,
            joinState: known.joinState,
          };
        }
        if (issuedAt === null || issuedAt <= known.deletedAt) return null;
      }
      // Claim changes are rare; the IMMEDIATE transaction keeps the name check and write together.
      const row = upsert.immediate(sub, username, email, issuedAt, admit);
      const { deletedAt, ...user } = row;
      return deletedAt === null ? user : null;
    },
  };
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;
