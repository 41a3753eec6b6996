import { existsSync, watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { InstanceSettings } from '../registration/instance-repository.js';
import { publicConfig } from './public-config.js';
import { accepts, varyOnAcceptEncoding } from '../kernel/compression.js';
import { prerender, type Prerendered } from './prerender.js';
import { pageDirectives, pagePolicy } from '../kernel/security.js';
import { buildPages, type ManifestChunk, type PageSettings, type Pages, type ScreenTable, type WebBuild } from './web-pages.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Makes the app's pages again from the build on disk (web/web-pages.ts); the last good ones answer meanwhile. */
    reloadWebPages(): Promise<void>;
  }
}

/** How long the build must have stopped changing before its pages are made again. */
const RELOAD_QUIET_MS = 1_000;

const escapeText = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

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
 * Serves the built SPA: hashed assets as immutable, index.html for / and every
 * /app/* route (client-side routing), with the run-time config inlined, the
 * opened screen's chunks named up front and, for the screens the build prerenders,
 * their first render in #root (web/prerender.ts). Without a build, / says how
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
      fastify.decorate('reloadWebPages', async () => {});
      return;
    }
    await fastify.register(fastifyStatic, {
      root: dist,
      index: false,
      // Looked up per request, not globbed once at start: a build made while the server runs
      // is served whole, its new hashed files included (its pages follow it: reloadWebPages).
      wildcard: true,
      // Not the build's own dot directories (.vite's manifest and screen table, the .ssr prerender).
      allowedPath: (path) => !path.split('/').some((part) => part.startsWith('.')),
      // The build's x.js.br / x.js.gz (web/vite.config.ts) to browsers that accept them.
      preCompressed: true,
      setHeaders(res, path) {
        res.header('cache-control', cacheControl(path, dist));
      },
    });
    const directives = pageDirectives(fastify.config);
    const policy: PageSettings['policy'] = (inline) => pagePolicy(directives, inline);
    /** The server's name (the operator page sets it, registration/instance-repository.ts) as the page's title. */
    const withServerName = (html: string, name: string) => html.replace(/<title>[^<]*<\/title>/, () => `<title>${escapeText(name)}</title>`);
    const prerenderEntry = join(dist, '.ssr', 'prerender.mjs');
    /**
     * The build as it is on disk now, made with one reading of the server's settings: its title,
     * the config the prerender renders with and the config inlined in its pages all come from
     * `instance`, so a save during the rebuild (issue 45) cannot leave a page naming two names.
     * Throws if it has no index.html (being rebuilt).
     */
    const readBuild = async (instance: InstanceSettings): Promise<{ build: WebBuild; settings: PageSettings }> => {
      const settings: PageSettings = { config: publicConfig(fastify.config, instance), policy };
      const html = withServerName(await readFile(index, 'utf8'), instance.name);
      const json = async <T>(file: string): Promise<T | null> => {
        try {
          return JSON.parse(await readFile(join(dist, '.vite', file), 'utf8')) as T;
        } catch {
          return null; // Built without it: no screen hints.
        }
      };
      const stylesheets = new Map<string, string>();
      for (const [, file] of html.matchAll(/<link rel="stylesheet"(?: crossorigin)? href="\/(assets\/[\w.-]+\.css)">/g)) {
        await readFile(join(dist, file!), 'utf8').then((css) => stylesheets.set(file!, css), () => undefined);
      }
      let prerendered = new Map<string, Prerendered>();
      if (existsSync(prerenderEntry)) {
        try {
          prerendered = await prerender(prerenderEntry, settings.config);
        } catch (err) {
          fastify.log.warn({ err }, 'web: the screens could not be prerendered; index.html is served without them');
        }
      }
      const build = {
        html,
        manifest: (await json<Record<string, ManifestChunk>>('manifest.json')) ?? {},
        screens: await json<ScreenTable>('screens.json'),
        stylesheets,
        prerendered,
      };
      return { build, settings };
    };
    /** Pages from the build on disk and the settings as they are when the rebuild starts. */
    const makePages = async (): Promise<Pages> => {
      const { build, settings } = await readBuild(fastify.instance.get());
      return buildPages(build, settings);
    };

    /**
     * The pages, made once per build (web/web-pages.ts). Rebuilt at start and when the build
     * changes, one rebuild at a time (a change during one runs one more after it); while the build
     * is being replaced (dist/ emptied by `npm run build`), or if a rebuild fails, the last good
     * pages keep answering. A save of the settings during a rebuild asks for one more, so the
     * last pages made are those of the last save.
     */
    let pages: Pages = await makePages();
    let running: Promise<void> | null = null;
    let again = false;
    const reload = (): Promise<void> => {
      if (running) {
        again = true;
        return running;
      }
      running = (async () => {
        do {
          again = false;
          try {
            pages = await makePages();
          } catch (err) {
            fastify.log.debug({ err }, 'web: the build could not be read; the last one keeps answering');
          }
        } while (again);
      })().finally(() => (running = null));
      return running;
    };
    fastify.decorate('reloadWebPages', reload);
    // A new name, description or rules: the pages (title, inlined config, the landing page's first render) are made again.
    fastify.instance.onChange(() => void reload());

    // The manifest with the server's name: installed apps and their launchers show it.
    fastify.get('/manifest.webmanifest', async (_request, reply) => {
      const base = await readFile(join(dist, 'manifest.webmanifest'), 'utf8').then((text) => JSON.parse(text) as Record<string, unknown>, () => ({}));
      const { name, description } = fastify.instance.get();
      const manifest = { ...base, name, short_name: Array.from(name).length <= 12 ? name : Array.from(name).slice(0, 12).join('').trim(), ...(description ? { description } : {}) };
      return reply.type('application/manifest+json; charset=utf-8').header('cache-control', 'no-cache').send(JSON.stringify(manifest));
    });
    // A new build (npm run build while the server runs): reloaded once the files have stopped
    // changing for a moment, so a build is read whole, not as it is being written.
    let timer: NodeJS.Timeout | undefined;
    const watcher = watch(dist, { recursive: true }, () => {
      clearTimeout(timer);
      timer = setTimeout(() => void reload(), RELOAD_QUIET_MS);
    });
    watcher.on('error', (err) => fastify.log.warn({ err }, 'web: not watching the build for changes'));
    fastify.addHook('onClose', async () => {
      clearTimeout(timer);
      watcher.close();
      await running;
    });

    const sendIndex = async (request: FastifyRequest, reply: FastifyReply) => {
      const page = pages(request.url.split('?')[0]!);
      const acceptEncoding = request.headers['accept-encoding'];
      const coding = accepts(acceptEncoding, 'br') ? 'br' : accepts(acceptEncoding, 'gzip') ? 'gzip' : null;
      // Each coding is its own representation, with its own ETag.
      const etag = `"${page.etag}${coding ? `-${coding}` : ''}"`;
      reply.header('content-security-policy', page.csp).header('cache-control', 'no-cache').header('etag', etag);
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
