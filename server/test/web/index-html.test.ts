import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { brotliCompressSync, brotliDecompressSync, gunzipSync } from 'node:zlib';
import t from 'tap';
import { RESOURCE_CSP } from '../../src/kernel/security.js';
import { configScript } from '../../src/web/web-pages.js';
import { buildTestApp } from '../helpers.js';

/** A web build as Vite writes it (web/vite.config.ts): index.html, hashed assets, the manifest, the public files. */
function fakeBuild(t: { teardown(fn: () => unknown): void }, inlineScript = '', prerenderWorker?: string) {
  const dist = mkdtempSync(join(tmpdir(), 'shower-beer-web-'));
  t.teardown(() => rmSync(dist, { recursive: true, force: true }));
  mkdirSync(join(dist, 'assets'));
  mkdirSync(join(dist, '.vite'));
  mkdirSync(join(dist, 'icons'));
  writeFileSync(
    join(dist, 'index.html'),
    `<!doctype html><html><head><title>Shower Beer</title>${inlineScript ? `<script>${inlineScript}</script>` : ''}<link rel="manifest" href="/manifest.webmanifest" />` +
      `<script type="module" crossorigin src="/assets/index-A1.js"></script><link rel="modulepreload" crossorigin href="/assets/shared-B2.js">` +
      `</head><body><div id="root"></div></body></html>`,
  );
  const manifest = {
    'index.html': { file: 'assets/index-A1.js', imports: ['_shared-B2.js'], css: ['assets/index-A1.css'], isEntry: true },
    '_shared-B2.js': { file: 'assets/shared-B2.js' },
    '_feed-C3.js': { file: 'assets/feed-C3.js', imports: ['_shared-B2.js', 'index.html', '_post-card-D4.js'] },
    '_post-card-D4.js': { file: 'assets/post-card-D4.js', imports: ['_shared-B2.js', 'index.html'], css: ['assets/post-card-D4.css'] },
    'src/features/discover/discover-page.tsx': { file: 'assets/discover-page-E5.js', imports: ['_shared-B2.js', '_feed-C3.js', 'index.html'], isDynamicEntry: true },
    'src/features/auth/login-page.tsx': { file: 'assets/login-page-F6.js', imports: ['_shared-B2.js'], css: ['assets/login-page-F6.css'], isDynamicEntry: true },
  };
  writeFileSync(join(dist, '.vite', 'manifest.json'), JSON.stringify(manifest));
  // As web/vite.config.ts's screenTable writes it from web/src/app/screens.ts.
  const screens = {
    appPage: '^\\/(app(\\/.*)?)?$',
    home: '/app/discover',
    screens: [
      { patterns: ['^\\/?$'], module: 'src/features/auth/login-page.tsx', prerender: true },
      { patterns: ['^\\/app\\/discover\\/?$'], module: 'src/features/discover/discover-page.tsx', prerender: false },
    ],
  };
  writeFileSync(join(dist, '.vite', 'screens.json'), JSON.stringify(screens));
  for (const file of ['index-A1.js', 'shared-B2.js', 'feed-C3.js', 'post-card-D4.js', 'discover-page-E5.js', 'login-page-F6.js']) {
    writeFileSync(join(dist, 'assets', file), 'export {};');
  }
  // As web/vite.config.ts's precompress leaves it next to the file.
  writeFileSync(join(dist, 'assets', 'index-A1.js.br'), brotliCompressSync('export {};'));
  writeFileSync(join(dist, 'sw.js'), "const VERSION = 'abc';\n");
  writeFileSync(join(dist, 'manifest.webmanifest'), JSON.stringify({ name: 'Shower Beer', display: 'standalone' }));
  writeFileSync(join(dist, 'icons', 'icon-192.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  writeFileSync(join(dist, 'beer-mug.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  // As web/vite.config.ts's prerenderBundle builds web/src/prerender/worker.ts.
  if (prerenderWorker !== undefined) {
    mkdirSync(join(dist, '.ssr'));
    writeFileSync(join(dist, '.ssr', 'prerender.mjs'), prerenderWorker);
  }
  return dist;
}

const inlined = (html: string) => {
  const match = /<script type="application\/json" id="app-config">(.*?)<\/script>/s.exec(html);
  return match ? (JSON.parse(match[1]!) as unknown) : null;
};

t.test('index.html carries the run-time config inline, the same as /config.json', async (t) => {
  const { app } = await buildTestApp(t, { WEB_DIST_DIR: fakeBuild(t) });
  const config = (await app.inject({ method: 'GET', url: '/config.json' })).json();
  for (const url of ['/', '/app', '/app/discover', '/app/profile/alice?x=1', '/app/no-such-screen']) {
    const res = await app.inject({ method: 'GET', url });
    t.equal(res.statusCode, 200, url);
    t.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    t.equal(res.headers['cache-control'], 'no-cache', `${url}: revalidated every time (a deploy is seen at once)`);
    t.same(inlined(res.body), config, `${url}: the config inlined`);
    t.ok(res.body.indexOf('id="app-config"') < res.body.indexOf('</head>'), 'in the head');
    t.match(String(res.headers['content-security-policy']), /script-src 'self'/, 'no inline script allowed or needed: a data block is not run');
  }
});

t.test('index.html may run its own inline script, allowed by its hash on that page alone, after the config it reads', async (t) => {
  const script = "window.early = JSON.parse(document.getElementById('app-config').textContent);";
  const { app } = await buildTestApp(t, { WEB_DIST_DIR: fakeBuild(t, script) });
  const hash = `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
  for (const url of ['/', '/app/discover', '/app/no-such-screen']) {
    const res = await app.inject({ method: 'GET', url });
    const csp = String(res.headers['content-security-policy']);
    const scriptSrc = /(?:^|;)\s*script-src ([^;]*)/.exec(csp)?.[1];
    t.equal(scriptSrc, `'self' ${hash}`, `${url}: that script and nothing else inline`);
    t.notMatch(csp, /unsafe-inline/);
    t.ok(res.body.indexOf('id="app-config"') < res.body.indexOf(`<script>${script}`), `${url}: the config comes before the script that reads it`);
  }
  const other = await app.inject({ method: 'GET', url: '/config.json' });
  t.equal(other.headers['content-security-policy'], RESOURCE_CSP, 'other answers allow no script at all');

  // A changed script is not allowed by the hash of the one before.
  const { app: changed } = await buildTestApp(t, { WEB_DIST_DIR: fakeBuild(t, `${script} alert(1);`) });
  const csp = String((await changed.inject({ method: 'GET', url: '/' })).headers['content-security-policy']);
  t.notMatch(csp, hash);
  t.match(csp, /script-src 'self' 'sha256-[A-Za-z0-9+/]+=*';/);
});

t.test('the inlined config cannot close its script element', async (t) => {
  const tag = configScript({ api: { baseUrl: 'https://x.example/</script><script>alert(1)</script><!--' } });
  t.ok(tag.startsWith('<script type="application/json" id="app-config">') && tag.endsWith('</script>'));
  const json = tag.slice(tag.indexOf('>') + 1, -'</script>'.length);
  t.notMatch(json, /</, 'no markup inside the data block (no </script>, <!-- or <script)');
  t.match(json, /\\u003c\/script>/);
  t.same(JSON.parse(json), { api: { baseUrl: 'https://x.example/</script><script>alert(1)</script><!--' } }, 'and reads back the same');

  // Through the server too: a base URL with markup in it.
  const { app } = await buildTestApp(t, { WEB_DIST_DIR: fakeBuild(t), API_BASE_URL: 'https://api.example.org/a</script><b>' });
  const res = await app.inject({ method: 'GET', url: '/app/discover' });
  t.equal(res.body.match(/<\/script>/g)?.length, 2, 'only the entry script and the data block end in </script>');
  t.match(inlined(res.body), { api: { baseUrl: 'https://api.example.org/a</script><b>' } });
});

t.test('the opened screen’s chunks and CSS are named up front, not what the entry already loads', async (t) => {
  const { app } = await buildTestApp(t, { WEB_DIST_DIR: fakeBuild(t) });
  const discover = (await app.inject({ method: 'GET', url: '/app/discover/' })).body;
  for (const file of ['discover-page-E5.js', 'feed-C3.js', 'post-card-D4.js']) {
    t.match(discover, `<link rel="modulepreload" crossorigin href="/assets/${file}">`, file);
  }
  t.match(discover, '<link rel="stylesheet" crossorigin href="/assets/post-card-D4.css">', 'the screen’s CSS');
  t.equal(discover.split('/assets/shared-B2.js').length - 1, 1, 'the entry’s own chunk is not named twice');
  t.notMatch(discover, 'login-page', 'nor another screen’s');

  const login = (await app.inject({ method: 'GET', url: '/' })).body;
  t.match(login, '<link rel="modulepreload" crossorigin href="/assets/login-page-F6.js">');
  t.match(login, '<link rel="stylesheet" crossorigin href="/assets/login-page-F6.css">');
  t.notMatch(login, 'discover-page');
  const home = (await app.inject({ method: 'GET', url: '/app' })).body;
  t.match(home, 'discover-page-E5.js', '/app: the home screen the table names');
  const unknown = (await app.inject({ method: 'GET', url: '/app/no-such-screen' })).body;
  t.notMatch(unknown, /modulepreload" crossorigin href="\/assets\/(discover|login)/, 'a path of no screen: no hints');
});

t.test('index.html answers 304 to its ETag', async (t) => {
  const { app } = await buildTestApp(t, { WEB_DIST_DIR: fakeBuild(t) });
  const first = await app.inject({ method: 'GET', url: '/app/discover' });
  const etag = String(first.headers.etag);
  t.match(etag, /^"[\w-]+"$/);
  const again = await app.inject({ method: 'GET', url: '/app/discover', headers: { 'if-none-match': etag } });
  t.equal(again.statusCode, 304);
  t.equal(again.body, '');
  const other = await app.inject({ method: 'GET', url: '/', headers: { 'if-none-match': etag } });
  t.equal(other.statusCode, 200, 'another screen’s page is another page');
});

t.test('the service worker and the web app manifest are revalidated, the icons kept a day, with their types', async (t) => {
  const { app } = await buildTestApp(t, { WEB_DIST_DIR: fakeBuild(t) });
  const cases: [string, RegExp, string][] = [
    ['/sw.js', /^(application|text)\/javascript/, 'no-cache'],
    ['/manifest.webmanifest', /^application\/manifest\+json/, 'no-cache'],
    ['/icons/icon-192.png', /^image\/png$/, 'public, max-age=86400'],
    ['/beer-mug.svg', /^image\/svg\+xml/, 'public, max-age=86400'],
  ];
  for (const [url, type, cacheControl] of cases) {
    const res = await app.inject({ method: 'GET', url });
    t.equal(res.statusCode, 200, url);
    t.match(String(res.headers['content-type']), type, `${url}: ${res.headers['content-type']}`);
    t.equal(res.headers['cache-control'], cacheControl, `${url}: ${cacheControl}`);
  }
  const asset = await app.inject({ method: 'GET', url: '/assets/index-A1.js' });
  t.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
  t.equal(asset.headers['content-encoding'], undefined, 'as written to a client that accepts no encoding');
  const br = await app.inject({ method: 'GET', url: '/assets/index-A1.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
  t.equal(br.headers['content-encoding'], 'br', 'the Brotli copy to one that does');
  t.match(String(br.headers.vary), /accept-encoding/i);
  t.match(String(br.headers['content-type']), /javascript/);
  t.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable');
  t.equal(brotliDecompressSync(br.rawPayload).toString(), 'export {};');
  t.equal(asset.headers['content-security-policy'], RESOURCE_CSP, 'a script answer allows nothing itself (the page that runs it decides)');
  t.equal((await app.inject({ method: 'GET', url: '/.vite/manifest.json' })).statusCode, 404, 'the build manifest is not served');
});

/** A prerender that answers as web/src/prerender/worker.ts does, showing the config it was handed. */
const answeringPrerender = `
import { parentPort, workerData } from 'node:worker_threads';
const { limits } = workerData.config;
parentPort.postMessage({
  '/': { html: '<main><h1>Shower Beer</h1></main>', signedIn: false },
  '/app/create-post': { html: '<header>nav</header><main><h1>New post</h1><span>' + limits.maxUploadBytes + '</span></main>', signedIn: true },
  'no-slash': { html: '<p>not a path</p>', signedIn: true },
  '/app/search-profile': { html: 42 },
});`;

t.test('a prerendered screen is in #root, marked with its path and session, and inert', async (t) => {
  const { app } = await buildTestApp(t, { WEB_DIST_DIR: fakeBuild(t, '', answeringPrerender), UPLOAD_MAX_BYTES: '12345' });
  const config = (await app.inject({ method: 'GET', url: '/config.json' })).json<{ limits: { maxUploadBytes: number } }>();
  t.equal(config.limits.maxUploadBytes, 12345);
  const landing = await app.inject({ method: 'GET', url: '/' });
  t.equal(landing.statusCode, 200);
  t.match(
    landing.body,
    '<div id="root"><div class="prerendered" data-prerendered data-path="/" data-session="out" inert><main><h1>Shower Beer</h1></main></div></div>',
  );
  for (const url of ['/app/create-post', '/app/create-post/', '/app/create-post?x=1']) {
    const res = await app.inject({ method: 'GET', url });
    t.match(
      res.body,
      `<div id="root"><div class="prerendered" data-prerendered data-path="/app/create-post" data-session="in" inert><header>nav</header><main><h1>New post</h1><span>12345</span></main></div></div>`,
      `${url}: rendered with the run-time config`,
    );
    t.same(inlined(res.body), config, 'and the config still inlined');
  }
  for (const url of ['/app/discover', '/app/search-profile', '/app/no-such-screen', '/app/profile/alice']) {
    const res = await app.inject({ method: 'GET', url });
    t.match(res.body, '<div id="root"></div>', `${url}: nothing prerendered (none given, or not a page)`);
  }
  t.notMatch((await app.inject({ method: 'GET', url: '/' })).body, 'not a path');

  const etag = String(landing.headers.etag);
  t.equal((await app.inject({ method: 'GET', url: '/', headers: { 'if-none-match': etag } })).statusCode, 304);
  t.equal((await app.inject({ method: 'GET', url: '/app/create-post', headers: { 'if-none-match': etag } })).statusCode, 200, 'each prerendered page is its own');
  t.equal((await app.inject({ method: 'GET', url: '/.ssr/prerender.mjs' })).statusCode, 404, 'the prerender itself is not served');
  t.equal((await app.inject({ method: 'GET', url: '/.vite/manifest.json' })).statusCode, 404, 'nor the build manifest');
});

t.test('a prerender that fails leaves index.html as it is', async (t) => {
  const broken: [string, string][] = [
    ['throws', "throw new Error('broken build');"],
    ['exits without answering', 'process.exit(0);'],
    ['answers nothing usable', "import { parentPort } from 'node:worker_threads'; parentPort.postMessage('<h1>hi</h1>');"],
  ];
  for (const [name, source] of broken) {
    const { app } = await buildTestApp(t, { WEB_DIST_DIR: fakeBuild(t, '', source) });
    const res = await app.inject({ method: 'GET', url: '/' });
    t.equal(res.statusCode, 200, name);
    t.match(res.body, '<div id="root"></div>', `${name}: the page without it`);
  }
});

t.test('a prerendered page has the stylesheet inline, allowed by its hash; pages are sent compressed to browsers that take them', async (t) => {
  const dist = fakeBuild(t, '', answeringPrerender);
  const css = 'body { color: #123; }\n.x::after { content: "a"; }\n';
  writeFileSync(join(dist, 'assets', 'index-A1.css'), css);
  const template = readFileSync(join(dist, 'index.html'), 'utf8');
  writeFileSync(join(dist, 'index.html'), template.replace('</head>', '<link rel="stylesheet" crossorigin href="/assets/index-A1.css"></head>'));
  const { app } = await buildTestApp(t, { WEB_DIST_DIR: dist });

  const plain = await app.inject({ method: 'GET', url: '/' });
  t.match(plain.body, `<style>${css}</style>`, 'the CSS in the page');
  t.notMatch(plain.body, 'rel="stylesheet" crossorigin href="/assets/index-A1.css"', 'instead of a request for it');
  t.ok(plain.body.indexOf('login-page-F6.js') < plain.body.indexOf('<style>'), 'the screen’s chunks are named before it');
  const discover = await app.inject({ method: 'GET', url: '/app/discover' });
  t.match(discover.body, '<link rel="stylesheet" crossorigin href="/assets/index-A1.css">', 'a page not prerendered keeps the request');
  t.notMatch(discover.body, '<style>');
  t.ok(discover.body.indexOf('discover-page-E5.js') < discover.body.indexOf('rel="stylesheet"'), 'named before the stylesheet too');
  const styleSrc = /(?:^|;)\s*style-src ([^;]*)/.exec(String(plain.headers['content-security-policy']))?.[1];
  t.equal(styleSrc, `'self' 'sha256-${createHash('sha256').update(css).digest('base64')}'`, 'that style and no other inline');
  t.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding: as it is');
  t.match(String(plain.headers.vary), /Accept-Encoding/);

  const br = await app.inject({ method: 'GET', url: '/', headers: { 'accept-encoding': 'gzip, deflate, br' } });
  t.equal(br.headers['content-encoding'], 'br');
  t.equal(brotliDecompressSync(br.rawPayload).toString('utf8'), plain.body, 'Brotli: the same page');
  t.ok(br.rawPayload.length < plain.body.length / 2, `smaller (${br.rawPayload.length} of ${plain.body.length} bytes)`);
  const gz = await app.inject({ method: 'GET', url: '/', headers: { 'accept-encoding': 'gzip' } });
  t.equal(gz.headers['content-encoding'], 'gzip');
  t.equal(gunzipSync(gz.rawPayload).toString('utf8'), plain.body, 'gzip: the same page');
  const refused = await app.inject({ method: 'GET', url: '/', headers: { 'accept-encoding': 'br;q=0, gzip;q=0' } });
  t.equal(refused.headers['content-encoding'], undefined, 'q=0 refuses a coding');

  // Each coding has its own ETag: a cached Brotli copy is never confirmed for a plain request.
  t.not(br.headers.etag, plain.headers.etag);
  t.equal((await app.inject({ method: 'GET', url: '/', headers: { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) } })).statusCode, 304);
  t.equal((await app.inject({ method: 'GET', url: '/', headers: { 'if-none-match': String(br.headers.etag) } })).statusCode, 200);
});

t.test('pages are made once per build: a build being replaced keeps the last good pages answering, reloads run one at a time', async (t) => {
  const runs = join(mkdtempSync(join(tmpdir(), 'shower-beer-runs-')), 'runs');
  t.teardown(() => rmSync(join(runs, '..'), { recursive: true, force: true }));
  // Marks its start and its end: two prerenders at once would show as "ss".
  const counting = `import { appendFileSync } from 'node:fs';
appendFileSync(${JSON.stringify(runs)}, 's');
await new Promise((resolve) => setTimeout(resolve, 100));
appendFileSync(${JSON.stringify(runs)}, 'e');
${answeringPrerender}`;
  const dist = fakeBuild(t, '', counting);
  const { app } = await buildTestApp(t, { WEB_DIST_DIR: dist });
  const before = await app.inject({ method: 'GET', url: '/app/discover' });
  t.equal(readFileSync(runs, 'utf8'), 'se', 'made once at start');

  // `npm run build` empties dist/ first: the pages made from the last build still answer.
  const template = readFileSync(join(dist, 'index.html'), 'utf8');
  rmSync(join(dist, 'index.html'));
  await app.reloadWebPages();
  for (const url of ['/', '/app/discover', '/app/create-post']) {
    const res = await app.inject({ method: 'GET', url });
    t.equal(res.statusCode, 200, `${url}: answered during the rebuild`);
  }
  t.equal((await app.inject({ method: 'GET', url: '/app/discover' })).body, before.body, 'with the last good build');

  // The new build: reloads asked for at once run one after the other, never side by side.
  writeFileSync(join(dist, 'index.html'), template.replace('<title>Shower Beer</title>', '<title>Shower Beer</title><meta name="build" content="2">'));
  await Promise.all(Array.from({ length: 8 }, () => app.reloadWebPages()));
  const ran = readFileSync(runs, 'utf8');
  t.match(ran, /^(se)+$/, `one prerender at a time (${ran})`);
  t.ok(ran.length <= 2 * 4, 'and not one per reload asked for');
  const after = await app.inject({ method: 'GET', url: '/app/discover' });
  t.match(after.body, '<meta name="build" content="2">', 'then the new build');
  t.not(after.headers.etag, before.headers.etag);
});
