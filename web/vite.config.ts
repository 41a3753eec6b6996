import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath, URL } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { build, defineConfig, runnerImport, type Plugin } from 'vite';
import type * as ScreensModule from './src/app/screens';

/**
 * Stamps the service worker (public/sw.js, as copied into the build) with a version made
 * from every other file of the build, so a deploy that changes anything installs a new
 * worker, which drops the old one's caches (a worker's script must change to be replaced).
 */
function serviceWorkerVersion(): Plugin {
  let outDir = '';
  return {
    name: 'service-worker-version',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const sw = join(outDir, 'sw.js');
      const files = readdirSync(outDir, { recursive: true, withFileTypes: true })
        .filter((f) => f.isFile())
        .map((f) => join(f.parentPath, f.name))
        .filter((f) => f !== sw)
        .sort();
      const hash = createHash('sha256');
      for (const file of files) hash.update(relative(outDir, file)).update(readFileSync(file));
      const source = readFileSync(sw, 'utf8');
      const stamped = source.replace(/^const VERSION = '[^']*';$/m, `const VERSION = '${hash.digest('hex').slice(0, 16)}';`);
      if (stamped === source) throw new Error('public/sw.js has no `const VERSION = \'…\';` line to stamp');
      writeFileSync(sw, stamped);
    },
  };
}

const alias = { '@': fileURLToPath(new URL('./src', import.meta.url)) };

/** The app's resolution and CSS-module names, shared with the prerender's build so its markup is the app's. */
const resolveOptions = {
  alias,
  // react-router is hoisted to the root node_modules, where an older React lives (for tap's ink):
  // always use this workspace's React.
  dedupe: ['react', 'react-dom'],
};
const cssOptions = { modules: { localsConvention: 'camelCaseOnly' as const } };

/**
 * index.html's inline scripts, each a `<script data-inline="src/….ts"></script>` there, bundled
 * on its own into one small script put in its place: the early requests (src/early-requests.ts)
 * right after <title>, so they are sent while the app's JavaScript is still on its way (before
 * the stylesheets: an inline script waits for the stylesheets above it to load; the server puts
 * the run-time config it reads just before it, server/src/web/web-pages.ts), and the check that drops a
 * stale prerendered screen (src/prerender/drop-stale.ts) right after #root. Inline, they run
 * without a request of their own; the server allows them in its Content-Security-Policy by their
 * hashes (server/src/web/web-pages.ts), never by 'unsafe-inline'. In development they stay empty:
 * there the app asks for everything itself, as it does without them, and nothing is prerendered.
 */
function inlineScripts(): Plugin {
  return {
    name: 'inline-scripts',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      async handler(html) {
        let out = html;
        for (const [tag, entry] of html.matchAll(/<script data-inline="([^"]+)"><\/script>/g)) {
          const output = await build({
            configFile: false,
            logLevel: 'warn',
            resolve: { alias },
            build: {
              write: false,
              target: 'es2022',
              minify: true,
              lib: { entry: fileURLToPath(new URL(`./${entry}`, import.meta.url)), formats: ['iife'], name: 'showerBeerInline' },
            },
          });
          const chunks = (Array.isArray(output) ? output : [output]).flatMap((o) => ('output' in o ? o.output : []));
          const chunk = chunks.find((c) => c.type === 'chunk');
          if (!chunk || chunk.type !== 'chunk') throw new Error(`${entry} built to nothing`);
          const code = chunk.code.trim();
          if (/<\/script/i.test(code)) throw new Error(`${entry} must not contain "</script"`);
          out = out.replace(tag, () => `<script>${code}</script>`);
        }
        return out;
      },
    },
  };
}

/**
 * What the server and the service worker need of the screen table (src/app/screens.ts), so
 * neither spells it again: dist/.vite/screens.json for the server (each screen's address
 * patterns and module, for the page's chunk hints, and which are prerendered: server/src/web/web-pages.ts),
 * and sw.js's APP_PAGE, the addresses the app's page answers. Under a dot directory: the server
 * does not serve it.
 */
function screenTable(): Plugin {
  let outDir = '';
  return {
    name: 'screen-table',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle: {
      order: 'pre',
      sequential: true,
      async handler() {
        const { module } = await runnerImport<typeof ScreensModule>(fileURLToPath(new URL('./src/app/screens.ts', import.meta.url)), {
          configFile: false,
          logLevel: 'warn',
          resolve: { alias },
        });
        const table = module.screensForServer();
        mkdirSync(join(outDir, '.vite'), { recursive: true });
        writeFileSync(join(outDir, '.vite', 'screens.json'), `${JSON.stringify(table, null, 2)}\n`);
        const sw = join(outDir, 'sw.js');
        const source = readFileSync(sw, 'utf8');
        const stamped = source.replace(/^const APP_PAGE = .*;$/m, () => `const APP_PAGE = new RegExp(${JSON.stringify(table.appPage)});`);
        if (stamped === source) throw new Error('public/sw.js has no `const APP_PAGE = …;` line to stamp');
        writeFileSync(sw, stamped);
      },
    },
  };
}

/**
 * The prerender (src/prerender/worker.ts) built for Node into dist/.ssr/prerender.mjs, one
 * file with React and the app's screens in it, so the server runs it without this workspace's
 * node_modules (the production image has only the server's). The server renders the screens
 * with its run-time config when it loads this build and puts each in index.html's #root
 * (server/src/web/prerender.ts): the page shows them before the app's JavaScript is here.
 * The same plugins, aliases and CSS-module names as the app's build, so the markup is the app's.
 * Under a dot directory: the server does not serve those (web/plugin.ts).
 */
function prerenderBundle(): Plugin {
  let root = '';
  let outDir = '';
  return {
    name: 'prerender-bundle',
    apply: 'build',
    configResolved(config) {
      root = config.root;
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle: {
      order: 'pre',
      sequential: true,
      async handler() {
        await build({
          configFile: false,
          root,
          logLevel: 'warn',
          publicDir: false,
          plugins: [react()],
          resolve: resolveOptions,
          css: cssOptions,
          ssr: { noExternal: true, target: 'node' },
          // React's production build only (its CommonJS entry would pick by NODE_ENV at run time).
          define: { 'process.env.NODE_ENV': JSON.stringify('production') },
          build: {
            ssr: fileURLToPath(new URL('./src/prerender/worker.ts', import.meta.url)),
            outDir: join(outDir, '.ssr'),
            emptyOutDir: true,
            target: 'node20',
            minify: false,
            rolldownOptions: { output: { format: 'es', entryFileNames: 'prerender.mjs', chunkFileNames: '[name]-[hash].mjs' } },
          },
        });
      },
    },
  };
}

/** Text files worth compressing (not index.html: the server makes its pages from it and compresses each itself, server/src/web/web-pages.ts). */
const COMPRESSIBLE = /\.(js|css|svg|webmanifest)$/;

/**
 * Brotli and gzip copies of the build's text files, next to them (x.js.br, x.js.gz), which the
 * server sends to browsers that accept them (@fastify/static's preCompressed, server/src/web/plugin.ts):
 * the first screen's JavaScript is 337 KB as written, about 95 KB as Brotli. Made once here at the
 * highest settings, not per request. Runs after serviceWorkerVersion, so sw.js is compressed as stamped.
 */
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    closeBundle: {
      order: 'post',
      handler() {
        for (const entry of readdirSync(outDir, { recursive: true, withFileTypes: true })) {
          const file = join(entry.parentPath, entry.name);
          if (!entry.isFile() || !COMPRESSIBLE.test(file)) continue;
          const source = readFileSync(file);
          if (source.length < 1024) continue;
          const params = { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: source.length };
          writeFileSync(`${file}.br`, brotliCompressSync(source, { params }));
          writeFileSync(`${file}.gz`, gzipSync(source, { level: 9 }));
        }
      },
    },
  };
}

export default defineConfig({
  plugins: [react(), inlineScripts(), screenTable(), prerenderBundle(), serviceWorkerVersion(), precompress()],
  resolve: resolveOptions,
  css: cssOptions,
  // The manifest (dist/.vite/manifest.json) tells the server each screen's chunks (server/src/web/web-pages.ts).
  build: {
    target: 'es2022',
    sourcemap: false,
    assetsInlineLimit: 0,
    manifest: true,
    cssCodeSplit: false,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'react-dom', test: /node_modules\/(react-dom|scheduler)\//, priority: 2 },
            { name: 'app', test: /node_modules|\/src\/(components|lib|app)\//, priority: 1 },
          ],
        },
      },
    },
  },
  server: {
    // `npm run dev -w web` proxies the API and provider to a server on :3000.
    proxy: Object.fromEntries(
      ['/api', '/oauth2', '/config.json', '/media', '/uploads', '/.well-known', '/healthz'].map((p) => [p, 'http://localhost:3000']),
    ),
  },
});
