/** Deterministic randomness for the seed: the same --seed gives the same community. */

/** sfc32: small, fast, good enough for synthetic data (not for anything secret). */
export function createRng(seed: number) {
  let a = 0x9e3779b9 ^ seed;
  let b = 0x243f6a88 ^ Math.imul(seed, 0x85ebca6b);
  let c = 0xb7e15162 ^ Math.imul(seed, 0xc2b2ae35);
  let d = 1;
  const next = () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 20; i++) next();
  return {
    /** Uniform in [0, 1). */
    next,
    /** Integer in [0, n). */
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    /** Exponential with this mean. */
    exp: (mean: number) => -Math.log(1 - next()) * mean,
    /** A random permutation of 0..n-1. */
    permutation(n: number): Int32Array {
      const p = new Int32Array(n);
      for (let i = 0; i < n; i++) p[i] = i;
      for (let i = n - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        const t = p[i]!;
        p[i] = p[j]!;
        p[j] = t;
      }
      return p;
    },
  };
}

export type Rng = ReturnType<typeof createRng>;

/**
 * Samples indexes 0..n-1 in proportion to weights (cumulative table + binary
 * search: ~20 steps at a million entries).
 */
export function weightedSampler(weights: Float64Array, rng: Rng) {
  const cdf = new Float64Array(weights.length);
  let total = 0;
  for (let i = 0; i < weights.length; i++) {
    total += weights[i]!;
    cdf[i] = total;
  }
  const last = weights.length - 1;
  return () => {
    const x = rng.next() * total;
    let lo = 0;
    let hi = last;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! <= x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** Zipf-like weights: the user at rank r (0-based, after `order`) weighs 1 / (r + 1)^s. */
export function zipfWeights(order: Int32Array, s: number): Float64Array {
  const w = new Float64Array(order.length);
  for (let rank = 0; rank < order.length; rank++) w[order[rank]!] = 1 / Math.pow(rank + 1, s);
  return w;
}
