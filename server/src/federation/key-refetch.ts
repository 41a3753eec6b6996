import type { KvKey, KvStore } from '@fedify/fedify';

/**
 * A key rotated by another server is fetched again once (issue 50, item 3: "a failed verification
 * refetches the key once before refusing"; Misskey #9877, GoToSocial #2170). Fedify does retry a
 * signature that fails with its cached key, but its retry loads the key's document through its
 * document cache (five minutes, keyed by URL), so it gets the old key back and refuses the new
 * one's signatures until that entry expires. plugin.ts calls `forget` after a 401 for a signed
 * request and, when something was cached, verifies once more: the key and its document then come
 * from the sender's server itself. A key revoked there keeps failing, and stays refused.
 *
 * Each refused request costs its keyId's server at most one more fetch, as an uncached key
 * does anyway; plugin.ts slows refused senders by address (inbox-limits.ts). The kv keys are
 * Fedify's own (its default kvPrefixes, which federation.ts keeps).
 */
export function createKeyRefetch(kv: KvStore) {
  return {
    /** Drops what is cached of `keyId` (the key, and the document it came in); true when anything was. */
    async forget(keyId: string): Promise<boolean> {
      const documentUrl = keyId.split('#')[0]!;
      const entries: KvKey[] = [
        ['_fedify', 'publicKey', keyId],
        ['_fedify', 'remoteDocument', keyId],
        ['_fedify', 'remoteDocument', documentUrl],
      ];
      let cached = false;
      for (const key of entries) {
        if ((await kv.get(key)) !== undefined) {
          cached = true;
          await kv.delete(key);
        }
      }
      return cached;
    },
  };
}
