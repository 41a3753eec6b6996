import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { withPrerendered, type Prerendered } from './prerender.js';

// The app's pages, made from a web build and the run-time config: pure, so web/plugin.ts can
// run it once per build (at start and when the build changes) and a page request only picks
// the coding and sends. Nothing here reads a file or a clock.

/** A chunk in Vite's build manifest (web/dist/.vite/manifest.json, `build.manifest`). */
export interface ManifestChunk {
  file: string;
  imports?: string[];
  css?: string[];
  isEntry?: boolean;
}

/**
 * What the build says of each screen (dist/.vite/screens.json, written from the screen table
 * web/src/app/screens.ts by web/vite.config.ts): the paths that open it, as regular expressions,
 * its module as the build manifest names it, and where `/app` goes.
 */
export interface ScreenTable {
  home: string;
  screens: { patterns: string[]; module: string; prerender: boolean }[];
}

/** A web build as web/plugin.ts reads it. */
export interface WebBuild {
  /** dist/index.html. */
  html: string;
  manifest: Record<string, ManifestChunk>;
  /** Null when the build has none: then no page names a screen's chunks. */
  screens: ScreenTable | null;
  /** The stylesheets index.html links, by their path in dist ('assets/x.css'). */
  stylesheets: Map<string, string>;
  /** The first renders by path (web/prerender.ts); empty without them. */
  prerendered: Map<string, Prerendered>;
}

/** One page as served: the HTML, its whole Content-Security-Policy, and Brotli and gzip copies made once. */
export interface Page {
  html: string;
  csp: string;
  etag: string;
  br: Buffer;
  gzip: Buffer;
}

/** The page for a path (its query left off). */
export type Pages = (path: string) => Page;

/** The run-time side: the config inlined in every page, and the policy a page's inline hashes complete. */
export interface PageSettings {
  config: unknown;
  policy: (inline: { scripts: string[]; styles: string[] }) => string;
}

const sha256Source = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The run-time config (as /config.json answers it) as an inert JSON data block: not run, so the CSP needs no entry for it. */
export const configScript = (config: unknown) =>
  `<script type="application/json" id="app-config">${JSON.stringify(config).replace(/</g, '\\u003c')}</script>`;

/** An address as the prerendered pages are keyed by: without trailing slashes (web/src/app/screens.ts, pagePath). */
const pagePath = (path: string) => path.replace(/\/+$/, '') || '/';

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

/** The hashes of a page's inline scripts and styles, as Content-Security-Policy sources. */
const inlineHashes = (html: string, tag: 'script' | 'style') =>
  [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => sha256Source(m[1]!));

function page(html: string, settings: PageSettings): Page {
  return {
    html,
    csp: settings.policy({ scripts: inlineHashes(html, 'script'), styles: inlineHashes(html, 'style') }),
    etag: createHash('sha256').update(html).digest('base64url').slice(0, 27),
    br: brotliCompressSync(html, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(html) } }),
    gzip: gzipSync(html, { level: 9 }),
  };
}

/**
 * Every page of a build: index.html per screen (its chunks named up front) and per prerendered
 * path (its first render in #root, the stylesheet inline), each with the config inlined and its
 * own complete CSP. Returns the lookup a request uses.
 */
export function buildPages(build: WebBuild, settings: PageSettings): Pages {
  const { html, manifest } = build;
  const configTag = configScript(settings.config);
  const screens = (build.screens?.screens ?? []).flatMap((s) => s.patterns.map((p): [RegExp, string] => [new RegExp(p), s.module]));
  const home = build.screens?.home;
  /** The module of the screen at `path` ('' for none); `/app` is the home screen's. */
  const screenOf = (path: string) => {
    const at = /^\/app\/*$/.test(path) && home ? home : path;
    return screens.find(([pattern]) => pattern.test(at))?.[1] ?? '';
  };

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
  // The others keep the stylesheet's request, which loads alongside the app's code their first
  // paint waits for anyway (inline there, it only lengthened the page's parsing and delayed
  // Discover's first photo: docs/performance.md).
  const inlineStylesheets = (text: string) =>
    text.replace(/<link rel="stylesheet"(?: crossorigin)? href="\/(assets\/[\w.-]+\.css)">/g, (link, file: string) => {
      const css = build.stylesheets.get(file);
      return css === undefined || /<\/style/i.test(css) ? link : `<style>${css}</style>`;
    });
  const byPath = new Map<string, Page>();
  for (const [path, first] of build.prerendered) {
    byPath.set(path, page(withPrerendered(inlineStylesheets(byScreen.get(screenOf(path))!), path, first), settings));
  }
  const pages = new Map([...byScreen].map(([screen, text]) => [screen, page(text, settings)]));
  return (path) => byPath.get(pagePath(path)) ?? pages.get(screenOf(path))!;
}
