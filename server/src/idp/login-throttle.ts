/**
 * Counts failed sign-ins per account (or per typed name when no account
 * matches, so the answer is the same either way). After `maxFailures` within
 * `windowMs` the key is refused until the oldest failure leaves the window.
 * In memory: one server process is what the embedded provider runs in.
 */
export interface LoginThrottleOptions {
  maxFailures?: number;
  windowMs?: number;
  /** Keys remembered at most; the stalest are dropped past it (memory bound under a spray of names). */
  maxKeys?: number;
  now?: () => number;
}

export function createLoginThrottle(options: LoginThrottleOptions = {}) {
  const maxFailures = options.maxFailures ?? 5;
  const windowMs = options.windowMs ?? 15 * 60_000;
  const maxKeys = options.maxKeys ?? 50_000;
  const now = options.now ?? Date.now;
  // Map keeps insertion order: re-inserting on each failure makes the first key the stalest.
  const failures = new Map<string, number[]>();

  const recent = (key: string, at: number) => {
    const list = failures.get(key);
    if (!list) return [];
    const kept = list.filter((t) => t > at - windowMs);
    if (kept.length === 0) failures.delete(key);
    else if (kept.length !== list.length) failures.set(key, kept);
    return kept;
  };

  return {
    /** Seconds to wait when the key is locked, otherwise 0. */
    retryAfterSeconds(key: string): number {
      const at = now();
      const list = recent(key, at);
      if (list.length < maxFailures) return 0;
      return Math.max(1, Math.ceil((list[list.length - maxFailures]! + windowMs - at) / 1000));
    },
    fail(key: string) {
      const at = now();
      const list = [...recent(key, at), at].slice(-maxFailures);
      failures.delete(key);
      failures.set(key, list);
      while (failures.size > maxKeys) failures.delete(failures.keys().next().value!);
    },
    reset(key: string) {
      failures.delete(key);
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
