import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { publicConfig } from '../routes/public-config.js';

/**
 * Each screen's module (web/src/app/router.tsx), by the paths that open it: index.html
 * names its chunk, the chunks it imports and its CSS up front, so they load alongside
 * the entry instead of after it has run. A path not listed (or a module the build does
 * not have) just gets no hints.
 */
export const SCREENS: [RegExp, string][] = [
  [/^\/$/, 'src/features/auth/login-page.tsx'],
  [/^\/app(\/account(\/[^/]+)?)?\/?$/, 'src/features/account/account-page.tsx'],
  [/^\/app\/create-post\/?$/, 'src/features/create-post/create-post-page.tsx'],
  [/^\/app\/discover\/?$/, 'src/features/discover/discover-page.tsx'],
  [/^\/app\/follow-feed\/?$/, 'src/features/follow-feed/follow-feed-page.tsx'],
  [/^\/app\/search-profile\/?$/, 'src/features/search-profile/search-profile-page.tsx'],
  [/^\/app\/profile\/[^/]+\/?$/, 'src/features/profile/profile-page.tsx'],
  [/^\/app\/notifications\/?$/, 'src/features/notifications/notifications-page.tsx'],
  [/^\/app\/admin\/?$/, 'src/features/admin/admin-page.tsx'],
];

/** A chunk in Vite's build manifest (web/dist/.vite/manifest.json, `build.manifest`). */
interface ManifestChunk {
  file: string;
  imports?: string[];
  css?: string[];
  isEntry?: boolean;
}

/** `<link>`s for a screen's chunk, the chunks it imports and their CSS, minus what the entry already loads. */
function screenHints(manifest: Record<string, ManifestChunk>, screen: string): string {
  const closure = (start: string[]) => {
    const seen = new Set<string>();
    const walk = (key: string) => {
      if (seen.has(key) || !manifest[key]) return;
      seen.add(key);
      for (const k of manifest[key].imports ?? []) walk(k);
    };
    start.forEach(walk);
    return seen;
  };
  if (!manifest[screen]) return '';
  const entry = closure(Object.keys(manifest).filter((k) => manifest[k]!.isEntry));
  const chunks = [...closure([screen])].filter((k) => !entry.has(k)).map((k) => manifest[k]!);
  // Stylesheets, not preloads: Vite's loader skips a screen's CSS already linked with rel=stylesheet.
  const css = [...new Set(chunks.flatMap((c) => c.css ?? []))].map((f) => `<link rel="stylesheet" crossorigin href="/${f}">`);
  const js = chunks.map((c) => `<link rel="modulepreload" crossorigin href="/${c.file}">`);
  return [...js, ...css].join('');
}

/**
 * How long a browser may keep a file of the build: the hashed files under assets/ for good;
 * the unhashed images (the beer mug, the app icons) for a day, so the page's preload of the mug
 * (web/index.html) is the copy its <img> and the favicon use instead of two more requests each
 * time (with no-cache, Chromium asked for it three times per page load); everything else
 * (the service worker, the manifest) is asked about every time, so a deploy is seen at once.
 */
export function cacheControl(path: string, dist: string): string {
  if (path.startsWith(join(dist, 'assets'))) return 'public, max-age=31536000, immutable';
  if (/\.(svg|png)$/.test(path)) return 'public, max-age=86400';
  return 'no-cache';
}

/**
 * The hashes of index.html's inline scripts (web/vite.config.ts puts the early requests there),
 * as Content-Security-Policy sources: the page may run exactly those, and no other inline script.
 */
export function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
    (m) => `'sha256-${createHash('sha256').update(m[1]!, 'utf8').digest('base64')}'`,
  );
}

/** The CSP as the security plugin set it, with these script sources added to script-src. */
export function allowScripts(csp: string, sources: string[]): string {
  if (sources.length === 0) return csp;
  return csp.replace(/(^|;)(\s*script-src [^;]*)/, (_m, start: string, directive: string) => `${start}${directive} ${sources.join(' ')}`);
}

/** The run-time config (as /config.json answers it) as an inert JSON data block: not run, so the CSP needs no entry for it. */
export const configScript = (config: unknown) =>
  `<script type="application/json" id="app-config">${JSON.stringify(config).replace(/</g, '\\u003c')}</script>`;

/**
 * Serves the built SPA: hashed assets as immutable, index.html for / and every
 * /app/* route (client-side routing), with the run-time config inlined and the
 * opened screen's chunks named up front. Without a build, / says how to make one.
 */
export default fp(
  async (fastify) => {
    const dist = fastify.config.web.distDir;
    const index = join(dist, 'index.html');
    if (!existsSync(index)) {
      fastify.log.warn(`web bundle not found at ${dist}: run "npm run build"`);
      const missing = async (_req: unknown, reply: FastifyReply) =>
        reply.code(503).type('text/plain').send('The web app is not built yet: run "npm run build" (npm start does it for you).');
      fastify.get('/', missing);
      fastify.get('/app/*', missing);
      return;
    }
    await fastify.register(fastifyStatic, {
      root: dist,
      index: false,
      wildcard: false,
      // The build's x.js.br / x.js.gz (web/vite.config.ts) to browsers that accept them.
      preCompressed: true,
      setHeaders(res, path) {
        res.header('cache-control', cacheControl(path, dist));
      },
    });
    const configTag = configScript(publicConfig(fastify.config));
    /** index.html as served, per screen (key '' for paths of none); rebuilt when the file changes (a new build). */
    let pages: { mtimeMs: number; byScreen: Map<string, { html: string; etag: string }>; scripts: string[] } | null = null;
    const load = async () => {
      const { mtimeMs } = await stat(index);
      if (pages?.mtimeMs === mtimeMs) return pages;
      const html = await readFile(index, 'utf8');
      let manifest: Record<string, ManifestChunk> = {};
      try {
        manifest = JSON.parse(await readFile(join(dist, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
      } catch {
        // Built without a manifest: no screen hints.
      }
      const byScreen = new Map<string, { html: string; etag: string }>();
      for (const screen of ['', ...SCREENS.map(([, s]) => s)]) {
        // The config right after <title>, ahead of the early-request script that reads it
        // (web/vite.config.ts puts that script there); the screen's chunks at the end of <head>.
        const hints = screen ? screenHints(manifest, screen) : '';
        let page = html.includes('</title>') ? html.replace('</title>', () => `</title>${configTag}`) : configTag + html;
        page = page.includes('</head>') ? page.replace('</head>', () => `${hints}</head>`) : hints + page;
        byScreen.set(screen, { html: page, etag: `"${createHash('sha256').update(page).digest('base64url').slice(0, 27)}"` });
      }
      pages = { mtimeMs, byScreen, scripts: inlineScriptHashes(html) };
      return pages;
    };
    await load();
    const sendIndex = async (request: FastifyRequest, reply: FastifyReply) => {
      const path = request.url.split('?')[0]!;
      const screen = SCREENS.find(([pattern]) => pattern.test(path))?.[1] ?? '';
      const { byScreen, scripts } = await load();
      const page = byScreen.get(screen)!;
      const csp = reply.getHeader('content-security-policy');
      if (typeof csp === 'string') reply.header('content-security-policy', allowScripts(csp, scripts));
      reply.header('cache-control', 'no-cache').header('etag', page.etag);
      if (request.headers['if-none-match'] === page.etag) return reply.code(304).send();
      return reply.type('text/html; charset=utf-8').send(page.html);
    };
    fastify.get('/', sendIndex);
    fastify.get('/app', sendIndex);
    fastify.get('/app/*', sendIndex);
  },
  { name: 'web', dependencies: ['db'] },
);
