import cors from '@fastify/cors';
import rateLimit, { type FastifyRateLimitStore, type RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import helmet, { type HelmetOptions } from 'helmet';
import type { Config } from './config.js';
import { HttpError } from './errors.js';

const originOf = (url: string) => {
  try {
    return url ? new URL(url).origin : null;
  } catch {
    return null;
  }
};

const MINUTE = 60_000;
const WRITE_METHODS = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);
/** Buckets shared by every route of a group (groupId), so a limit counts all of a caller's writes together. */
export const WRITES_GROUP = 'writes';
export const UPLOADS_GROUP = 'uploads';

/**
 * Fixed-window counters kept in memory, oldest keys dropped past `cap`.
 * Unlike the plugin's own store (one per route), routes that name the same
 * groupId share one store, so "600 writes a minute" means all writes together.
 */
class WindowStore implements FastifyRateLimitStore {
  private readonly counters = new Map<string, { current: number; start: number }>();
  private readonly groups: Map<string, WindowStore>;

  private readonly cap = 10_000;

  /** The plugin constructs the root store with its options (unused here). */
  constructor(_options?: unknown, groups?: Map<string, WindowStore>) {
    this.groups = groups ?? new Map();
  }

  incr(key: string, cb: (err: Error | null, res?: { current: number; ttl: number }) => void, timeWindow: number) {
    const now = Date.now();
    let entry = this.counters.get(key);
    if (!entry || entry.start + timeWindow <= now) entry = { current: 0, start: now };
    entry.current++;
    this.counters.delete(key); // re-insert: Map order is then least recently used first
    this.counters.set(key, entry);
    if (this.counters.size > this.cap) this.counters.delete(this.counters.keys().next().value!);
    cb(null, { current: entry.current, ttl: entry.start + timeWindow - now });
  }

  read(key: string, cb: (err: Error | null, res?: { current: number; ttl: number }) => void, timeWindow: number) {
    const now = Date.now();
    const entry = this.counters.get(key);
    if (!entry || entry.start + timeWindow <= now) return cb(null, { current: 0, ttl: 0 });
    cb(null, { current: entry.current, ttl: entry.start + timeWindow - now });
  }

  child(params: RouteOptions & { path: string; prefix: string }): FastifyRateLimitStore {
    const group = (params as unknown as RateLimitOptions).groupId;
    if (!group) return new WindowStore(null, this.groups);
    let shared = this.groups.get(group);
    if (!shared) this.groups.set(group, (shared = new WindowStore(null, this.groups)));
    return shared;
  }
}

/** The signed-in caller (the limiter runs after authentication), else the address. */
const byUser = (request: FastifyRequest) => (request.user ? `user:${request.user.id}` : `ip:${request.ip}`);
const byAddress = (request: FastifyRequest) => `ip:${request.ip}`;

/**
 * The headers helmet sets, computed once. @fastify/helmet builds a new helmet
 * middleware on every request (re-parsing the CSP directives: 5% of a feed
 * request's CPU and 6% of a write's, profiled); our headers never vary per
 * request (no nonces), so helmet runs once at start-up against a recording response.
 */
export function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  let failed: unknown;
  helmet(options)({} as never, recorder as never, (err?: unknown) => {
    failed = err;
  });
  if (failed) throw failed;
  return headers;
}

/** The pages' Content-Security-Policy for this config, as helmet's directives; a page adds its own inline hashes (pagePolicy). */
export function pageDirectives(config: Config) {
  const self = originOf(config.publicUrl);
  const apiOrigins = [originOf(config.web.apiBaseUrl), originOf(config.web.secondApiBaseUrl)];
  const others = (list: (string | null)[]) => [...new Set(list.filter((o): o is string => o !== null && o !== self))];
  return {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    scriptSrcAttr: ["'none'"],
    styleSrc: ["'self'"],
    // blob: is the preview of the file being posted; data: the bundled fallback avatar.
    imgSrc: ["'self'", 'data:', 'blob:', ...others(apiOrigins)],
    fontSrc: ["'self'"],
    connectSrc: [
      "'self'",
      ...others([
        config.storage.driver === 's3' ? originOf(config.storage.s3.publicEndpoint) : null,
        originOf(config.auth.userInfoUrl),
        ...apiOrigins,
      ]),
    ],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'none'"],
    objectSrc: ["'none'"],
    manifestSrc: ["'self'"],
    workerSrc: ["'self'"],
  };
}

export type PageDirectives = ReturnType<typeof pageDirectives>;

/**
 * One page's whole Content-Security-Policy: the pages' directives with the hashes of exactly the
 * inline scripts and styles that page carries (web/web-pages.ts), never 'unsafe-inline'.
 */
export function pagePolicy(directives: PageDirectives, inline: { scripts: string[]; styles: string[] }): string {
  const headers = helmetHeaders({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { ...directives, scriptSrc: [...directives.scriptSrc, ...inline.scripts], styleSrc: [...directives.styleSrc, ...inline.styles] },
    },
  });
  return headers['content-security-policy']!;
}

/**
 * What a response the browser never renders as a page gets instead of the page's policy:
 * nothing may load from it, and nothing may frame it. It is shorter too: the page's
 * policy and the headers only a page reads came to about 520 bytes on each photo, script
 * and JSON answer, about 10 KB of a cold Following load (docs/performance.md).
 */
export const RESOURCE_CSP = "default-src 'none';frame-ancestors 'none'";
/** Helmet's headers that only a document reads (framing, the browsing context, old browsers' page modes). */
const DOCUMENT_ONLY = [
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-frame-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
];
/**
 * The app's pages and the provider's: they keep the whole set. Anything else a browser might
 * show as a page of its own (JSON, an SVG opened by its address) is better off able to run nothing.
 */
const PAGE_TYPE = /^\s*text\/html\b/i;

const methodsOf = (route: RouteOptions) => (Array.isArray(route.method) ? route.method : [route.method]);

/**
 * Browser-facing protections and abuse limits.
 *
 * - Content-Security-Policy on pages: the token lives in sessionStorage, so no
 *   foreign script at all, and no inline script but the app page's own, allowed
 *   by its hash on that page alone (web/plugin.ts); images only from our own
 *   origins (processed media is always served by the server at /media, whatever
 *   the storage driver); uploads and API calls only to our origins and the storage.
 *   Every other answer gets RESOURCE_CSP, which allows nothing.
 * - Rate limits (429 `{ error: 'rate_limited' }` with Retry-After):
 *   every POST/PUT/DELETE under /api/ counts against one per-user budget of
 *   RATE_LIMIT_WRITES_PER_MINUTE (checked after authentication, in preHandler);
 *   the local driver's upload PUT (/uploads/…, no token) counts per address.
 *   Sign-in and sign-up set their own per-address limit (idp).
 */
export default fp(
  async (fastify) => {
    const { config } = fastify;
    const self = originOf(config.publicUrl);
    const securityHeaders = helmetHeaders({
      contentSecurityPolicy: { useDefaults: false, directives: pageDirectives(config) },
      // Media is fetched cross-origin by nobody but our own pages.
      crossOriginResourcePolicy: { policy: 'same-origin' },
      referrerPolicy: { policy: 'no-referrer' },
      strictTransportSecurity: config.publicUrl.startsWith('https://'),
    });
    // Fastify sends no X-Powered-By, so there is nothing for helmet's removeHeader to do per request.
    fastify.addHook('onRequest', (_request, reply, done) => {
      reply.headers(securityHeaders);
      done();
    });
    // Everything but a page gets the short policy (RESOURCE_CSP). Decided by the type the answer
    // is sent with: an answer without one (a 304 revalidating index.html, whose stored page policy
    // the browser would otherwise replace) keeps the whole set, and so does the service worker's
    // script, the one script whose own policy governs it (its fetches need connect-src).
    fastify.addHook('onSend', (request, reply, payload, done) => {
      const type = reply.getHeader('content-type');
      if (typeof type === 'string' && !PAGE_TYPE.test(type) && request.headers['service-worker'] !== 'script') {
        reply.header('content-security-policy', RESOURCE_CSP);
        for (const name of DOCUMENT_ONLY) reply.removeHeader(name);
      }
      done(null, payload);
    });

    const allowed = new Set([self, ...config.corsOrigins.map(originOf)].filter(Boolean));
    await fastify.register(cors, {
      // No Origin, no CORS: a browser sends one with every cross-origin request, so an answer
      // to a request without one needs no Access-Control headers.
      origin: (origin, cb) => cb(null, origin !== undefined && allowed.has(origin)),
      credentials: true,
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      // X-Invite-Code and X-Join-Reason: a first sign-in's invite and reason (docs/registration.md), from an app on another host too.
      allowedHeaders: ['Authorization', 'Content-Type', 'X-Invite-Code', 'X-Join-Reason'],
      // The data export's file name, readable by the web app on another API host.
      exposedHeaders: ['Content-Disposition'],
      maxAge: 600,
    });

    // Added before @fastify/rate-limit registers its own onRoute hook, so this runs
    // first and the limiter sees the config it sets. It overrides any per-route
    // write limit: the one budget is kept here.
    const writes: RateLimitOptions = {
      max: config.rateLimits.writesPerMinute,
      timeWindow: MINUTE,
      groupId: WRITES_GROUP,
      // After authentication (an onRequest hook in /api, a preHandler on media routes);
      // route-level hooks run after instance hooks, and the limiter is appended last.
      hook: 'preHandler',
      keyGenerator: byUser,
    };
    const uploads: RateLimitOptions = {
      max: config.rateLimits.writesPerMinute,
      timeWindow: MINUTE,
      groupId: UPLOADS_GROUP,
      // Before the body is read: a refused upload costs no bandwidth.
      hook: 'onRequest',
      keyGenerator: byAddress,
    };
    fastify.addHook('onRoute', (route) => {
      const url = route.url ?? route.path;
      if (!methodsOf(route).some((m) => WRITE_METHODS.has(m))) return;
      if (url.startsWith('/api/')) route.config = { ...route.config, rateLimit: writes };
      else if (url.startsWith('/uploads/')) route.config = { ...route.config, rateLimit: uploads };
    });

    await fastify.register(rateLimit, {
      global: false,
      store: WindowStore as unknown as new () => FastifyRateLimitStore,
      errorResponseBuilder: (_request, context) => {
        const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
        return new HttpError(429, 'rate_limited', `Too many requests: try again in ${seconds} s.`, {
          'retry-after': String(seconds),
        });
      },
    });
  },
  { name: 'security', dependencies: ['db'] },
);
