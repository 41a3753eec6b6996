import { AsyncLocalStorage } from 'node:async_hooks';
import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import { Agent, buildConnector, Dispatcher, getGlobalDispatcher, setGlobalDispatcher } from 'undici';

/**
 * The guard every outgoing federation fetch goes through (issue 50, item 4): actors, keys,
 * objects, WebFinger, outbox backfill, media and inbox deliveries.
 *
 * - The check is made on the address actually connected to: a connection's host name is resolved
 *   once, every address is checked, and the socket may open only to those addresses (TLS keeps
 *   the name as its servername). DNS that answers differently between a check and the connection
 *   (rebinding) thus has nothing to slip through; a redirect opens a new connection, checked again.
 * - Only public unicast addresses are reached (publicAddress, below), except the operator's listed
 *   `host:port`s (FEDERATION_ALLOWED_PRIVATE_HOSTS, for tests), matched with the connection's port.
 * - Each response has a deadline and a size cap: past either, it is aborted, the rest never read.
 *
 * Fedify sends deliveries and fetches documents with the global fetch. The app's own fetches
 * (keycloak-sync.ts to the operator's Keycloak, the OIDC discovery and JWKS in kernel/auth/) and
 * the tests' clients in the same process must reach the operator's private addresses, so the
 * guard is not every fetch's: a global dispatcher sends a request through the guard when it is made
 * inside a federation scope (runInScope), which plugin.ts opens around everything federation runs:
 * Fedify's request handling, its queue worker, lookups, backfill and the event drains. Our own
 * fetches (fetchImage in remote-posts.ts) use guardedFetch, which refuses outside a scope.
 */

/** A fetch the guard refused: a private address, too large, or too slow. */
export class FetchRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FetchRefused';
  }
}

/** The most a document (actor, key, object, collection page, WebFinger) may be: Mastodon's are a few kB. */
export const DOCUMENT_MAX_BYTES = 1024 * 1024;
/** How long one request may take, connecting to the last byte: a peer that never answers holds a worker this long. */
export const FETCH_TIMEOUT_MS = 15_000;
const CONNECT_TIMEOUT_MS = 10_000;

/** Resolves a host name to all its addresses (dns.lookup's answer), injectable for tests. */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;
const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

// ---------------------------------------------------------------------------------------------
// Addresses

/**
 * An IPv4 address in any spelling inet_aton takes (what a resolver may be handed): one to four
 * parts, each decimal, octal (leading 0) or hex (0x); the last part fills the remaining bytes
 * (`127.1`, `2130706433`, `0177.0.0.1`, `0x7f.1`). Null when it is not one.
 */
export function parseIPv4(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length > 4 || parts.some((p) => p === '')) return null;
  const values: number[] = [];
  for (const part of parts) {
    let n: number;
    if (/^0x[0-9a-f]*$/i.test(part)) n = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]*$/.test(part)) n = parseInt(part, 8);
    else if (/^[1-9][0-9]*$/.test(part)) n = Number(part);
    else return null;
    values.push(n);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255) || last >= 256 ** (4 - values.length)) return null;
  const bytes = [...values];
  for (let i = 3 - values.length; i >= 0; i--) bytes.push(Math.floor(last / 256 ** i) % 256);
  return bytes;
}

/** An IPv6 address (with or without brackets, an embedded IPv4 tail, a zone) as 16 bytes; null when it is not one. */
export function parseIPv6(text: string): number[] | null {
  const address = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(address) !== 6) return null;
  let head = address;
  const tail: number[] = [];
  const v4 = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (v4) {
    head = v4[1]!.endsWith('::') ? v4[1]! : v4[1]!.slice(0, -1);
    tail.push(...v4[2]!.split('.').map(Number));
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined];
  const groups = (s: string | undefined) => (s ? s.split(':').filter((g) => g !== '').map((g) => parseInt(g, 16)) : []);
  const l = groups(left);
  const r = groups(right);
  const fill = 8 - tail.length / 2 - l.length - r.length;
  const words = right === undefined ? l : [...l, ...Array<number>(fill).fill(0), ...r];
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
  return [...bytes, ...tail];
}

const inV4 = (b: number[], net: [number, number, number, number], bits: number) => {
  for (let i = 0; i < 4; i++) {
    const take = Math.max(0, Math.min(8, bits - i * 8));
    const mask = take === 0 ? 0 : (0xff << (8 - take)) & 0xff;
    if ((b[i]! & mask) !== (net[i]! & mask)) return false;
  }
  return true;
};

/** IPv4 ranges that are not the public internet (RFC 6890's special-purpose registry, and multicast and reserved). */
const V4_NOT_PUBLIC: Array<[[number, number, number, number], number]> = [
  [[0, 0, 0, 0], 8], // "this network", unspecified
  [[10, 0, 0, 0], 8], // private
  [[100, 64, 0, 0], 10], // CGNAT
  [[127, 0, 0, 0], 8], // loopback
  [[169, 254, 0, 0], 16], // link-local (cloud metadata at 169.254.169.254)
  [[172, 16, 0, 0], 12], // private
  [[192, 0, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2, 0], 24], // documentation
  [[192, 88, 99, 0], 24], // 6to4 relay anycast
  [[192, 168, 0, 0], 16], // private
  [[198, 18, 0, 0], 15], // benchmarking
  [[198, 51, 100, 0], 24], // documentation
  [[203, 0, 113, 0], 24], // documentation
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4], // reserved, and broadcast
];

function publicV4(b: number[]): boolean {
  return !V4_NOT_PUBLIC.some(([net, bits]) => inV4(b, net, bits));
}

/**
 * Only global unicast (2000::/3) is public; so loopback, unspecified, IPv4-mapped (::ffff:0:0/96)
 * and -compatible (::/96), NAT64's well-known prefix (64:ff9b::/96), unique-local (fc00::/7),
 * link-local (fe80::/10) and multicast (ff00::/8) are all refused by being outside it. Inside it,
 * Teredo and the IETF's assignments (2001::/23), documentation (2001:db8::/32, 3fff::/20) and 6to4
 * (2002::/16, which embeds any IPv4 address) are refused too.
 */
function publicV6(b: number[]): boolean {
  if ((b[0]! & 0xe0) !== 0x20) return false;
  if (b[0] === 0x20 && b[1] === 0x01 && (b[2]! & 0xfe) === 0x00) return false;
  if (b[0] === 0x20 && b[1] === 0x01 && b[2] === 0x0d && b[3] === 0xb8) return false;
  if (b[0] === 0x20 && b[1] === 0x02) return false;
  if (b[0] === 0x3f && b[1] === 0xff && (b[2]! & 0xf0) === 0x00) return false;
  return true;
}

/**
 * Whether an address (as a resolver answers it, or an IP literal in any spelling) is on the public
 * internet. Anything that is not an address is not public.
 */
export function publicAddress(address: string): boolean {
  const v4 = parseIPv4(address.replace(/^\[|\]$/g, ''));
  if (v4) return publicV4(v4);
  const v6 = parseIPv6(address);
  return v6 !== null && v6.length === 16 && publicV6(v6);
}

/**
 * A URL's host name that is plainly not public without asking DNS: an IP literal of a private
 * range in any spelling, or `localhost` (and its subdomains, which resolvers answer locally).
 */
export function privateHostLiteral(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const bare = host.replace(/^\[|\]$/g, '');
  if (parseIPv4(bare) !== null || parseIPv6(bare) !== null) return !publicAddress(bare);
  return false;
}

/** `host:port` as FEDERATION_ALLOWED_PRIVATE_HOSTS lists it (an IPv6 host in brackets), lower-case. */
export function hostPort(host: string, port: number | string): string {
  const bare = host.toLowerCase().replace(/^\[|\]$/g, '');
  return `${isIP(bare) === 6 ? `[${bare}]` : bare}:${port}`;
}

// ---------------------------------------------------------------------------------------------
// The guard

export interface FetchGuardOptions {
  /** FEDERATION_ALLOWED_PRIVATE_HOSTS: `host:port`s that may be private (tests). */
  allowedPrivateHosts: readonly string[];
  resolve?: Resolver;
  /** Per-request deadline, connecting to the last byte (FETCH_TIMEOUT_MS). */
  timeoutMs?: number;
  /** The most a document may be (DOCUMENT_MAX_BYTES). */
  documentMaxBytes?: number;
  /**
   * Servers not to connect to at all, asked with the URL's host (`name` or `name:port` when the port
   * is not the scheme's): the operator's suspended servers, and in allow-list mode every server off
   * the list (domain-blocks.ts `refused`). Fedify's own fetches (a key, an object an activity names,
   * a reply's parent) go through here too, so a listed server cannot lead us to an unlisted one.
   */
  refusedHost?: (host: string) => boolean;
}

export interface FetchGuard {
  /** Documents and deliveries: capped at documentMaxBytes. */
  readonly documents: Dispatcher;
  /** A dispatcher with its own size cap (media: the upload limit). */
  capped(maxBytes: number): Dispatcher;
  /** Runs `fn` in this guard's federation scope: every fetch it makes goes through the guard. */
  run<T>(fn: () => T): T;
  close(): Promise<void>;
}

const scope = new AsyncLocalStorage<FetchGuard>();

/** Makes a guard (one per server: its listed hosts are its own). */
export function createFetchGuard(options: FetchGuardOptions): FetchGuard {
  const allowed = new Set(options.allowedPrivateHosts.map((h) => h.toLowerCase()));
  const resolve = options.resolve ?? systemResolver;
  const timeoutMs = options.timeoutMs ?? FETCH_TIMEOUT_MS;
  const connectTimeout = Math.min(CONNECT_TIMEOUT_MS, timeoutMs);
  const direct = buildConnector({ timeout: connectTimeout });

  const connect: buildConnector.connector = (opts, callback) => {
    const host = opts.hostname.toLowerCase().replace(/^\[|\]$/g, '');
    const defaultPort = opts.protocol === 'https:' ? 443 : 80;
    const port = Number(opts.port) || defaultPort;
    const named = port === defaultPort ? host : hostPort(host, port);
    if (options.refusedHost?.(named)) {
      callback(new FetchRefused(`${named} is a server this one does not federate with`), null);
      return;
    }
    // An IP literal is connected to as it is; a host name that is an IPv4 address in a loose spelling
    // (only here if something let it by unnormalised) is judged as that address, not resolved.
    const loose = isIP(host) === 0 ? parseIPv4(host) : null;
    const addresses: Promise<{ address: string; family: number }[]> = isIP(host) !== 0
      ? Promise.resolve([{ address: host, family: isIP(host) }])
      : loose !== null
        ? Promise.resolve([{ address: loose.join('.'), family: 4 }])
        : resolve(host);
    addresses
      .then((found) => {
        if (found.length === 0) throw new FetchRefused(`${host} has no address`);
        const listedName = allowed.has(hostPort(host, port));
        const refused = found.find((a) => !listedName && !allowed.has(hostPort(a.address, port)) && !publicAddress(a.address));
        if (refused !== undefined) throw new FetchRefused(`${hostPort(host, port)} is at ${refused.address}, an address federation does not reach`);
        if (isIP(host) !== 0 || loose !== null) return direct({ ...opts, hostname: found[0]!.address }, callback);
        // A name: the socket's own lookup answers with exactly the addresses checked here (never
        // asking DNS again), so Node still tries each in turn (IPv6, then IPv4) and TLS keeps the
        // name for its certificate.
        const checked: LookupFunction = (_hostname, options, done) => {
          if (options.all) return (done as (err: null, addresses: { address: string; family: number }[]) => void)(null, found);
          const first = found.find((a) => !options.family || a.family === options.family) ?? found[0]!;
          (done as (err: null, address: string, family: number) => void)(null, first.address, first.family);
        };
        buildConnector({ timeout: connectTimeout, lookup: checked })(opts, callback);
      })
      .catch((err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), null));
  };

  const agent = new Agent({ connect, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const documentMaxBytes = options.documentMaxBytes ?? DOCUMENT_MAX_BYTES;
  const made = new Map<number, Dispatcher>();
  const capped = (maxBytes: number): Dispatcher => {
    let d = made.get(maxBytes);
    if (!d) made.set(maxBytes, (d = new CappedDispatcher(agent, maxBytes, timeoutMs)));
    return d;
  };
  const guard: FetchGuard = {
    documents: capped(documentMaxBytes),
    capped,
    run: (fn) => scope.run(guard, fn),
    close: () => agent.close(),
  };
  installScopedDispatcher();
  return guard;
}

/**
 * A fetch that goes through the current scope's guard, capped at `maxBytes`; refused outside a
 * federation scope, so that federation code that forgot to open one fails closed.
 */
export function guardedFetch(url: URL | string, init: RequestInit, maxBytes?: number): Promise<Response> {
  const guard = scope.getStore();
  if (!guard) return Promise.reject(new FetchRefused('a federation fetch outside a federation scope'));
  const dispatcher = maxBytes === undefined ? guard.documents : guard.capped(maxBytes);
  // Node's fetch takes undici's dispatcher option (its own copy of undici 6, the same interface).
  return fetch(url, { ...init, dispatcher } as RequestInit);
}

/** The guard of the scope we are in, if any. */
export function currentGuard(): FetchGuard | undefined {
  return scope.getStore();
}

/** Aborts a response past its size cap or its deadline; the rest of its body is never read. */
class CapHandler implements Dispatcher.DispatchHandlers {
  #abort: ((reason?: Error) => void) | null = null;
  #size = 0;
  #timer: NodeJS.Timeout;
  #expired: FetchRefused | null = null;
  #refused = false;

  private readonly handler: Dispatcher.DispatchHandlers;
  private readonly maxBytes: number;

  constructor(handler: Dispatcher.DispatchHandlers, maxBytes: number, timeoutMs: number) {
    this.handler = handler;
    this.maxBytes = maxBytes;
    this.#timer = setTimeout(() => {
      this.#expired = new FetchRefused(`no complete answer within ${timeoutMs} ms`);
      this.#abort?.(this.#expired);
    }, timeoutMs).unref();
  }

  /**
   * Aborts once the parser has returned: aborting from inside its callbacks made Node's fetch
   * throw its "terminated" error out of the socket's data handler (seen here), not into the body.
   * Returning false meanwhile pauses the socket, so nothing more is read.
   */
  #refuse(reason: FetchRefused): void {
    if (this.#refused) return;
    this.#refused = true;
    setImmediate(() => this.#abort?.(reason));
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.#abort = abort;
    if (this.#expired) return abort(this.#expired);
    this.handler.onConnect?.(abort);
  }

  onHeaders(statusCode: number, headers: Buffer[], resume: () => void, statusText: string): boolean {
    for (let i = 0; i + 1 < headers.length; i += 2) {
      if (String(headers[i]).toLowerCase() !== 'content-length') continue;
      const declared = Number(String(headers[i + 1]));
      if (Number.isFinite(declared) && declared > this.maxBytes) {
        this.#refuse(new FetchRefused(`an answer of ${declared} bytes, over ${this.maxBytes}`));
        return false;
      }
    }
    return this.handler.onHeaders?.(statusCode, headers, resume, statusText) ?? true;
  }

  onData(chunk: Buffer): boolean {
    if (this.#refused) return false;
    this.#size += chunk.length;
    if (this.#size > this.maxBytes) {
      this.#refuse(new FetchRefused(`an answer over ${this.maxBytes} bytes`));
      return false;
    }
    return this.handler.onData?.(chunk) ?? true;
  }

  onComplete(trailers: string[] | null): void {
    clearTimeout(this.#timer);
    this.handler.onComplete?.(trailers);
  }

  onError(err: Error): void {
    clearTimeout(this.#timer);
    this.handler.onError?.(err);
  }

  onUpgrade(statusCode: number, headers: Buffer[] | string[] | null, socket: Duplex): void {
    clearTimeout(this.#timer);
    this.handler.onUpgrade?.(statusCode, headers, socket);
  }

  onResponseStarted(): void {
    this.handler.onResponseStarted?.();
  }

  onBodySent(...args: Parameters<NonNullable<Dispatcher.DispatchHandlers['onBodySent']>>): void {
    this.handler.onBodySent?.(...args);
  }
}

class CappedDispatcher extends Dispatcher {
  private readonly inner: Dispatcher;
  private readonly maxBytes: number;
  private readonly timeoutMs: number;

  constructor(inner: Dispatcher, maxBytes: number, timeoutMs: number) {
    super();
    this.inner = inner;
    this.maxBytes = maxBytes;
    this.timeoutMs = timeoutMs;
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandlers): boolean {
    return this.inner.dispatch(options, new CapHandler(handler, this.maxBytes, this.timeoutMs));
  }

  override close(): Promise<void> {
    return this.inner.close();
  }

  override destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** The process's fetch dispatcher: the scope's guard inside a federation scope, the one it replaced outside. */
class ScopedDispatcher extends Dispatcher {
  readonly outside: Dispatcher;

  constructor(outside: Dispatcher) {
    super();
    this.outside = outside;
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandlers): boolean {
    const guard = scope.getStore();
    return (guard ? guard.documents : this.outside).dispatch(options, handler);
  }

  override close(): Promise<void> {
    return this.outside.close();
  }

  override destroy(): Promise<void> {
    return this.outside.destroy();
  }
}

/** Installed once per process, when the first guard is made (federation turned on). */
function installScopedDispatcher(): void {
  const current = getGlobalDispatcher();
  if (current instanceof ScopedDispatcher) return;
  setGlobalDispatcher(new ScopedDispatcher(current));
}
