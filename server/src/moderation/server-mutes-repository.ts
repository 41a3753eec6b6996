import type Database from 'better-sqlite3';
import type { Shared } from '../kernel/shared.js';
import { badRequest } from '../kernel/errors.js';
import { normalizeDomain } from '../kernel/host-names.js';

/** Most servers one person may mute: far more than anyone needs, and it bounds what each page reads. */
export const SERVER_MUTES_MAX = 1000;

export interface ServerMuteRow {
  host: string;
  createdAt: number;
}

/**
 * A person's mutes of whole servers (issue 50, item 2; docs/api.md, "Muting a server"): what people
 * of a muted host post, comment and notify leaves that person's own views, and nothing else changes.
 * Nothing is sent anywhere, follows stay, and everyone else's views are as before.
 *
 * Where the mute is read: the feeds and tag pages (posts/posts-repository.ts, with the viewer's block
 * sets, in the read workers too), the first comments and the comment list, profile search
 * (people/users-repository.ts), and the Notifications screen and the bell (kernel/notification-rules.ts).
 * Each of those skips its block checks for someone whose users.block_count is 0, so a mute counts
 * there too (+1 each), and moves users.blocks_version so kept block sets are read again.
 *
 * The bell: a like, comment, mention or follow from a muted host is kept but not counted
 * (notification-rules.ts, MUTED_ACTOR), and a mute or an unmute counts the person's unread
 * notifications again, so unmuting brings back what was hidden.
 */
export function createServerMutesRepository(sqlite: Database.Database, { counters, live }: Shared, ownHost: string) {
  const list = sqlite.prepare<[number], ServerMuteRow>(
    'SELECT host, created_at AS createdAt FROM server_mutes WHERE user_id = ? ORDER BY created_at DESC, host',
  );
  const count = sqlite.prepare<[number], number>('SELECT count(*) FROM server_mutes WHERE user_id = ?').pluck();
  const insert = sqlite.prepare<{ user: number; host: string; now: number }>(
    'INSERT INTO server_mutes (user_id, host, created_at) VALUES (@user, @host, @now) ON CONFLICT DO NOTHING',
  );
  const remove = sqlite.prepare<{ user: number; host: string }>('DELETE FROM server_mutes WHERE user_id = @user AND host = @host');
  const counted = sqlite.prepare<{ user: number; delta: number }>(
    'UPDATE users SET block_count = block_count + @delta, blocks_version = blocks_version + 1 WHERE id = @user',
  );

  /** The host as users.host spells it, or a 400 that says what is wanted. */
  function hostOf(raw: string): string {
    const host = normalizeDomain(raw);
    if (host === null) throw badRequest('host must be the name of a server, such as social.example or social.example:8443.');
    if (host === ownHost) throw badRequest('This is this server: you can block people here, not mute it.');
    return host;
  }

  const change = sqlite.transaction((user: number, host: string, mute: boolean): boolean => {
    live.assert(user);
    if (mute && count.get(user)! >= SERVER_MUTES_MAX) throw badRequest(`You can mute at most ${SERVER_MUTES_MAX} servers.`);
    const changed = (mute ? insert.run({ user, host, now: Date.now() }) : remove.run({ user, host })).changes === 1;
    if (!changed) return false;
    counted.run({ user, delta: mute ? 1 : -1 });
    counters.serverMutesChanged(user);
    return true;
  });

  return {
    /** The caller's muted servers, newest first. */
    list: (user: number): ServerMuteRow[] => list.all(user),
    /** Normalises `raw` (400 when it is no host, or this server's own); muting one already muted changes nothing. */
    mute(user: number, raw: string): string {
      const host = hostOf(raw);
      change.immediate(user, host, true);
      return host;
    },
    /** The host unmuted, or null when the caller had not muted it. */
    unmute(user: number, raw: string): string | null {
      const host = hostOf(raw);
      return change.immediate(user, host, false) ? host : null;
    },
  };
}

export type ServerMutesRepository = ReturnType<typeof createServerMutesRepository>;
