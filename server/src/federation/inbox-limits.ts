import { LruMap } from '../kernel/lru.js';

export interface RateOptions {
  /** Activities a sender may deliver at once before it is slowed down. */
  burst: number;
  /** The rate it may keep up, per minute. */
  perMinute: number;
  now?: () => number;
}

/** Senders remembered at once: past it the least recent is forgotten (and starts again full). */
const SENDERS_KEPT = 10_000;

/**
 * A token bucket per sender (issue 50, item 3: "one server's volume is rate limited without
 * slowing others"). `allows` looks without taking; `take` spends one token. Refilled by time.
 */
export function createRateLimit(options: RateOptions) {
  const now = options.now ?? Date.now;
  const perMs = options.perMinute / 60_000;
  const buckets = new LruMap<string, { tokens: number; at: number }>(SENDERS_KEPT);
  const level = (key: string) => {
    const at = now();
    const bucket = buckets.get(key);
    const tokens = bucket ? Math.min(options.burst, bucket.tokens + (at - bucket.at) * perMs) : options.burst;
    return { tokens, at };
  };
  return {
    allows: (key: string): boolean => level(key).tokens >= 1,
    take(key: string): void {
      const { tokens, at } = level(key);
      buckets.set(key, { tokens: Math.max(0, tokens - 1), at });
    },
    /** Whole seconds until `key` may send again (at least 1). */
    retryAfter: (key: string): number => Math.max(1, Math.ceil((1 - level(key).tokens) / perMs / 1000)),
  };
}

/**
 * The host a signed inbox POST names as its signer, read before the signature is checked: the
 * keyId of draft-cavage's `Signature` header or RFC 9421's `Signature-Input`. Only used to pick
 * the sender's bucket, which is charged once the signature held (plugin.ts): a request claiming
 * another server's key fails the check and costs that server nothing.
 */
export function signerHost(headers: Record<string, string | string[] | undefined>): string | null {
  const keyId = signerKeyId(headers);
  if (keyId === null) return null;
  try {
    return new URL(keyId).host.toLowerCase();
  } catch {
    return null;
  }
}

/** The key id an inbox POST's signature names (either header), unverified; null when unsigned. */
export function signerKeyId(headers: Record<string, string | string[] | undefined>): string | null {
  for (const name of ['signature', 'signature-input']) {
    const raw = headers[name];
    const value = Array.isArray(raw) ? raw[0] : raw;
    const keyId = value && /keyid="([^"]{1,2048})"/i.exec(value)?.[1];
    if (keyId) return keyId;
  }
  return null;
}
