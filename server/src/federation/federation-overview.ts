import type Database from 'better-sqlite3';

export interface KnownServer {
  host: string;
  /** Their people known here (followed, following, or found by a search). */
  people: number;
  /** Follows of people here by their people. */
  followers: number;
  /** Follows of their people by people here. */
  following: number;
}

/** The most servers the operator page lists: the rest are counted in the totals. */
const SERVERS_SHOWN = 100;

/**
 * The other servers this one knows (issue 49, item 6), from the people of theirs kept here
 * (users.host, remote_actors). A waiting follow request is not counted.
 * A scan of the remote people, for the operator page only; each follow count is a lookup on the
 * follows table's keys.
 */
export function createFederationOverview(sqlite: Database.Database) {
  const servers = sqlite.prepare<[], KnownServer>(`
    SELECT u.host AS host, count(*) AS people,
      sum((SELECT count(*) FROM follows f JOIN users l ON l.id = f.followee_id
           WHERE f.follower_id = u.id AND l.host IS NULL)) AS followers,
      sum((SELECT count(*) FROM follows f JOIN users l ON l.id = f.follower_id
           WHERE f.followee_id = u.id AND l.host IS NULL)) AS following
    FROM remote_actors a JOIN users u ON u.id = a.user_id
    WHERE u.deleted_at IS NULL
    GROUP BY u.host`);
  return {
    servers(): { servers: KnownServer[]; totals: { servers: number; people: number; followers: number; following: number } } {
      const all = servers.all().sort((a, b) => b.followers + b.following - (a.followers + a.following) || b.people - a.people || a.host.localeCompare(b.host));
      const totals = { servers: all.length, people: 0, followers: 0, following: 0 };
      for (const s of all) {
        totals.people += s.people;
        totals.followers += s.followers;
        totals.following += s.following;
      }
      return { servers: all.slice(0, SERVERS_SHOWN), totals };
    },
  };
}
