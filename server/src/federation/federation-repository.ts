import type Database from 'better-sqlite3';

/** A person as other servers see them: only what the app already shows anyone on their profile. */
export interface FederatedPerson {
  id: number;
  username: string;
  pictureKey: string | null;
  isPrivate: number;
  createdAt: number;
  /** Named posts only (users.public_post_count): anonymous posts are counted nowhere another server can read. */
  publicPostCount: number;
  followerCount: number;
  followingCount: number;
}

export type KeyAlgorithm = 'RSASSA-PKCS1-v1_5' | 'Ed25519';

export interface StoredKeyPair {
  algorithm: KeyAlgorithm;
  publicKeyJwk: string;
  privateKeyJwk: string;
}

export interface NodeCounts {
  users: number;
  localPosts: number;
  localComments: number;
}

export interface FederationRepository {
  /** A named account that may be served: not removed, not suspended, not waiting to be let in (those carry suspended_at). */
  person(id: number): FederatedPerson | undefined;
  /** The same, by name in any case (WebFinger's acct:name@host, a profile URL). */
  personIdByName(username: string): number | undefined;
  /** The key pairs stored for an actor (Fedify's identifier), oldest algorithm first. */
  keyPairs(actor: string): StoredKeyPair[];
  /**
   * Keeps each of `pairs` for `actor` unless one of its algorithm is stored already (two requests
   * making them at once: the first to commit wins), and answers what is stored.
   */
  storeKeyPairs(actor: string, pairs: StoredKeyPair[]): StoredKeyPair[];
  /** NodeInfo's usage: people who may be served, their named posts, and the comments on those posts. */
  nodeCounts(): NodeCounts;
  /** When a person of ours was removed (their actor answers 410 Gone from then on); undefined for anyone else. */
  removedAt(id: number): number | undefined;
}

const PERSON = `SELECT id, username, profile_picture_key AS pictureKey, is_private AS isPrivate, created_at AS createdAt,
    public_post_count AS publicPostCount, follower_count AS followerCount, following_count AS followingCount
  FROM users`;
/** Our own people (host null: not someone of another server we know), not removed, suspended or waiting. */
const SERVED = 'host IS NULL AND deleted_at IS NULL AND suspended_at IS NULL';

export function createFederationRepository(sqlite: Database.Database): FederationRepository {
  const byId = sqlite.prepare<[number], FederatedPerson>(`${PERSON} WHERE id = ? AND ${SERVED}`);
  const idByName = sqlite.prepare<[string], number>(`SELECT id FROM users WHERE username = ? COLLATE NOCASE AND ${SERVED}`).pluck();
  const keys = sqlite.prepare<[string], StoredKeyPair>(
    `SELECT algorithm, public_key_jwk AS publicKeyJwk, private_key_jwk AS privateKeyJwk FROM federation_keys
     WHERE actor = ? ORDER BY algorithm DESC`,
  );
  const insertKey = sqlite.prepare<[string, string, string, string, number]>(
    'INSERT OR IGNORE INTO federation_keys (actor, algorithm, public_key_jwk, private_key_jwk, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  // Named posts are public_post_count: the number every profile already shows, so the sum tells
  // nothing new, and an anonymous post moves no figure here (no count an author could be read from).
  const counts = sqlite.prepare<[], Omit<NodeCounts, 'localComments'>>(
    `SELECT COUNT(*) AS users, COALESCE(SUM(public_post_count), 0) AS localPosts FROM users WHERE ${SERVED}`,
  );
  // Comments on named posts only, for the same reason; a scan of posts (about 0.1 s at a million),
  // which is why NodeInfo keeps its figures a while (federation.ts).
  const comments = sqlite
    .prepare<[], number>(
      'SELECT COALESCE(SUM(comment_count), 0) FROM posts WHERE is_anonymous = 0 AND hidden = 0 AND is_profile_picture = 0',
    )
    .pluck();

  // INSERT OR IGNORE: a pair already stored for an algorithm is kept, whoever made the other one.
  const store = sqlite.transaction((actor: string, pairs: StoredKeyPair[]) => {
    const at = Date.now();
    for (const p of pairs) insertKey.run(actor, p.algorithm, p.publicKeyJwk, p.privateKeyJwk, at);
    return keys.all(actor);
  });

  const removed = sqlite.prepare<[number], number>('SELECT deleted_at FROM users WHERE id = ? AND host IS NULL AND deleted_at IS NOT NULL').pluck();

  return {
    removedAt: (id) => removed.get(id),
    person: (id) => byId.get(id),
    personIdByName: (username) => idByName.get(username),
    keyPairs: (actor) => keys.all(actor),
    storeKeyPairs: (actor, pairs) => store.immediate(actor, pairs),
    nodeCounts: () => ({ ...counts.get()!, localComments: comments.get()! }),
  };
}
