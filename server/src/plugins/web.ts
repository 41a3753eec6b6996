import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { publicConfig } from '../routes/public-config.js';
import { prerender, withPrerendered, type Prerendered } from './prerender.js';
import { accepts, varyOnAcceptEncoding } from '../compression.js';

/**
 * What the build says of each screen (dist/.vite/screens.json, written from the screen table
 * web/src/app/screens.ts by web/vite.config.ts): the paths that open it, as regular
 * expressions, and its module as the build manifest names it. index.html names the module's
 * chunk, the chunks it imports and its CSS up front, so they load alongside the entry instead of
 * after it has run. A path of no screen (or a build without the file) just gets no hints.
 */
export interface ScreenTable {
  home: string;
  screens: { patterns: string[]; module: string; prerender: boolean }[];
}

/** Each screen's path patterns and module, from the build's screens.json; none if it has none. */
export function screenModules(table: ScreenTable | null): [RegExp, string][] {
  return (table?.screens ?? []).flatMap((s) => s.patterns.map((p): [RegExp, string] => [new RegExp(p), s.module]));
}

/** The module of the screen at `path` ('' for none); `/app` is the table's home screen's. */
export function screenOf(screens: [RegExp, string][], home: string | undefined, path: string): string {
  const at = /^\/app\/*$/.test(path) && home ? home : path;
  return screens.find(([pattern]) => pattern.test(at))?.[1] ?? '';
}

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
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => sha256Source(m[1]!));
}

/** The CSP as the security plugin set it, with these sources added to one directive (script-src, style-src). */
export function allowSources(csp: string, directive: 'script-src' | 'style-src', sources: string[]): string {
  if (sources.length === 0) return csp;
  const pattern = new RegExp(`(^|;)(\\s*${directive} [^;]*)`);
  return csp.replace(pattern, (_m, start: string, found: string) => `${start}${found} ${sources.join(' ')}`);
}

const sha256Source = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * index.html with the build's stylesheets (one: web/vite.config.ts sets cssCodeSplit false)
 * put inline, and their hashes for style-src. A page with a screen prerendered in it
 * (plugins/prerender.ts) is then painted as soon as it has arrived, without a request of
 * its own for the styles first. About 6 KB compressed.
 */
export async function inlineStylesheets(html: string, dist: string): Promise<{ html: string; hashes: string[] }> {
  const hashes: string[] = [];
  let out = html;
  for (const match of html.matchAll(/<link rel="stylesheet"(?: crossorigin)? href="\/(assets\/[\w.-]+\.css)">/g)) {
    let css: string;
    try {
      css = await readFile(join(dist, match[1]!), 'utf8');
    } catch {
      continue;
    }
    if (/<\/style/i.test(css)) continue;
    out = out.replace(match[0], () => `<style>${css}</style>`);
    hashes.push(sha256Source(css));
  }
  return { html: out, hashes };
}

/** The run-time config (as /config.json answers it) as an inert JSON data block: not run, so the CSP needs no entry for it. */
export const configScript = (config: unknown) =>
  `<script type="application/json" id="app-config">${JSON.stringify(config).replace(/</g, '\\u003c')}</script>`;

/**
 * Serves the built SPA: hashed assets as immutable, index.html for / and every
 * /app/* route (client-side routing), with the run-time config inlined, the
 * opened screen's chunks named up front and, for the screens the build prerenders,
 * their first render in #root (plugins/prerender.ts). Without a build, / says how
 * to make one. Files and directories whose name starts with a dot (the build's
 * .vite manifest, its .ssr prerender) are not served.
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
    const config = publicConfig(fastify.config);
    const configTag = configScript(config);
    const prerenderEntry = join(dist, '.ssr', 'prerender.mjs');
    /** The build's first renders by path (plugins/prerender.ts); none without that part of the build, or if it fails. */
    const prerendered = async (): Promise<Map<string, Prerendered>> => {
      if (!existsSync(prerenderEntry)) return new Map();
      try {
        return await prerender(prerenderEntry, config);
      } catch (err) {
        fastify.log.warn({ err }, 'web: the screens could not be prerendered; index.html is served without them');
        return new Map();
      }
    };
    /** A page as served: the HTML, and Brotli and gzip copies made once (HTML is most of what a slow network waits for first). */
    type Page = { html: string; etag: string; br: Buffer; gzip: Buffer };
    const page = (html: string): Page => ({
      html,
      etag: createHash('sha256').update(html).digest('base64url').slice(0, 27),
      br: brotliCompressSync(html, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(html) } }),
      gzip: gzipSync(html, { level: 9 }),
    });
    /**
     * index.html as served, per screen (key '' for paths of none), and per prerendered path
     * with its first render in #root; rebuilt when the file changes (a new build).
     */
    let pages: {
      mtimeMs: number;
      screens: [RegExp, string][];
      home: string | undefined;
      byScreen: Map<string, Page>;
      byPath: Map<string, Page>;
      scripts: string[];
      styles: string[];
    } | null = null;
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
      let table: ScreenTable | null = null;
      try {
        table = JSON.parse(await readFile(join(dist, '.vite', 'screens.json'), 'utf8')) as ScreenTable;
      } catch {
        // Built without the screen table: no screen hints.
      }
      const screens = screenModules(table);
      const byScreen = new Map<string, string>();
      for (const screen of ['', ...new Set(screens.map(([, s]) => s))]) {
        // The config right after <title>, ahead of the early-request script that reads it
        // (web/vite.config.ts puts that script there); the screen's chunks with the entry's,
        // ahead of the stylesheet (inlined on prerendered pages: ~30 KB for the parser to read first).
        const hints = screen ? screenHints(manifest, screen) : '';
        let text = html.includes('</title>') ? html.replace('</title>', () => `</title>${configTag}`) : configTag + html;
        const at = /<link rel="stylesheet"/.exec(text)?.[0] ?? '</head>';
        text = text.includes(at) ? text.replace(at, () => `${hints}${at}`) : hints + text;
        byScreen.set(screen, text);
      }
      // A prerendered page carries its stylesheet inline: it is painted as soon as it has arrived.
      // The others keep the stylesheet's request, which loads alongside the app's code their
      // first paint waits for anyway (inline there, it only lengthened the page's parsing and
      // delayed Discover's first photo: docs/performance.md).
      const byPath = new Map<string, Page>();
      const styles = new Set<string>();
      for (const [path, first] of await prerendered()) {
        const screen = screenOf(screens, table?.home, path);
        const inlined = await inlineStylesheets(byScreen.get(screen)!, dist);
        inlined.hashes.forEach((hash) => styles.add(hash));
        byPath.set(path, page(withPrerendered(inlined.html, path, first)));
      }
      pages = { mtimeMs, screens, home: table?.home, byScreen: new Map([...byScreen].map(([k, v]) => [k, page(v)])), byPath, scripts: inlineScriptHashes(html), styles: [...styles] };
      return pages;
    };
    await load();
    const sendIndex = async (request: FastifyRequest, reply: FastifyReply) => {
      const path = request.url.split('?')[0]!;
      const { screens, home, byScreen, byPath, scripts, styles } = await load();
      const screen = screenOf(screens, home, path);
      const page = byPath.get(path.replace(/\/+$/, '') || '/') ?? byScreen.get(screen)!;
      const csp = reply.getHeader('content-security-policy');
      if (typeof csp === 'string') reply.header('content-security-policy', allowSources(allowSources(csp, 'script-src', scripts), 'style-src', styles));
      const acceptEncoding = request.headers['accept-encoding'];
      const coding = accepts(acceptEncoding, 'br') ? 'br' : accepts(acceptEncoding, 'gzip') ? 'gzip' : null;
      // Each coding is its own representation, with its own ETag.
      const etag = `"${page.etag}${coding ? `-${coding}` : ''}"`;
      reply.header('cache-control', 'no-cache').header('etag', etag);
      varyOnAcceptEncoding(reply);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      reply.type('text/html; charset=utf-8');
      return coding ? reply.header('content-encoding', coding).send(page[coding]) : reply.send(page.html);
    };
    fastify.get('/', sendIndex);
    fastify.get('/app', sendIndex);
    fastify.get('/app/*', sendIndex);
  },
  { name: 'web', dependencies: ['db'] },
);
