// `npx tsx scripts/bench-web/cold-visit.ts --tree A [--tree B …] [--paths /app/create-post,/app/search-profile] [--runs 5]`
//
// What a real cold visit shows, not Lighthouse's simulation: Chromium throttled as Lighthouse's
// mobile preset is (slow 4G: 150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up; CPU 4× slower),
// no HTTP cache, no service worker, a signed-in person's tab opening the address. Each built tree
// (a checkout after `npm run build`) runs its own server on a fresh DATA_DIR; the runs alternate
// between trees. Per visit it records the page's own first contentful paint and largest
// contentful paint, and from a screencast the moment the screen first looks as it will end
// (visually complete: within 1% of the last frame). It prints medians and writes a filmstrip per
// tree and path (frames every 250 ms) to --out, to look at.
//
// Used for issue 35: does prerendering Create post and Search (web/src/app/screens.ts,
// `prerender`) help a real visit? Build one tree with and one without, then compare.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Browser } from '@playwright/test';
import sharp from 'sharp';
import { TOKEN_KEY } from '../../web/src/lib/first-requests.js';
import { freePort, startNode, type Running } from '../bench/processes.js';
import { median } from '../bench/requests.js';

const { values } = parseArgs({
  options: {
    tree: { type: 'string', multiple: true },
    paths: { type: 'string', default: '/app/create-post,/app/search-profile' },
    runs: { type: 'string', default: '5' },
    out: { type: 'string', default: 'test-results/cold-visit' },
  },
});
const trees = (values.tree ?? []).map((t) => resolve(t));
if (trees.length === 0) throw new Error('--tree DIR (a built checkout) at least once');
const paths = values.paths!.split(',');
const runs = Number(values.runs);
const out = resolve(values.out!);
mkdirSync(out, { recursive: true });

const SLOW_4G = { offline: false, latency: 150, downloadThroughput: (1.6 * 1024 * 1024) / 8, uploadThroughput: (750 * 1024) / 8 };
const PHONE = { width: 390, height: 844 };

interface Visit {
  fcp: number;
  lcp: number;
  complete: number;
  frames: { t: number; data: Buffer }[];
}

interface Server {
  tree: string;
  running: Running;
  data: string;
  token: string;
}

async function startServer(tree: string, browser: Browser): Promise<Server> {
  const data = mkdtempSync(join(tmpdir(), 'shower-beer-cold-visit-'));
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const running = await startNode('server/dist/server.js', { DATA_DIR: data, PORT: String(port), PUBLIC_URL: url, LOG_LEVEL: 'warn', RATE_LIMIT_AUTH_PER_MINUTE: '10000' }, port, '/healthz', {
    nodeArgs: [],
    cwd: tree,
  });
  // A person signs up on the provider's page once, unthrottled; their token is what the visits carry.
  const context = await browser.newContext({ viewport: PHONE });
  const page = await context.newPage();
  await page.goto(url);
  await page.getByRole('link', { name: 'Login' }).click();
  await page.getByRole('link', { name: 'Create account' }).click();
  const name = `cold${Date.now().toString(36)}`;
  await page.getByLabel('Username').fill(name);
  await page.getByLabel('Email').fill(`${name}@example.test`);
  await page.getByLabel('Password').fill('Cold-visit-password-42');
  await page.getByRole('button', { name: 'Create account' }).click();
  // A sign-up lands on the welcome (web/src/app/app-layout.tsx), through /app/account.
  await page.waitForURL('**/app/welcome');
  const token = (await page.evaluate(`sessionStorage.getItem(${JSON.stringify(TOKEN_KEY)})`)) as string | null;
  await context.close();
  if (!token) throw new Error('no token after sign-up');
  return { tree, running, data, token };
}

async function visit(browser: Browser, server: Server, path: string): Promise<Visit> {
  // No cache, no service worker: a first visit. The token is in the tab's sessionStorage, as after sign-in.
  const context = await browser.newContext({ viewport: PHONE, serviceWorkers: 'block', deviceScaleFactor: 1 });
  // In-page code as text: this project's scripts are typed for Node, not the DOM.
  await context.addInitScript({ content: `sessionStorage.setItem(${JSON.stringify(TOKEN_KEY)}, ${JSON.stringify(server.token)});` });
  await context.addInitScript({
    content: `window.__paints = {};
      new PerformanceObserver((l) => { for (const e of l.getEntries()) if (e.name === 'first-contentful-paint') window.__paints.fcp = e.startTime; }).observe({ type: 'paint', buffered: true });
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__paints.lcp = e.startTime; }).observe({ type: 'largest-contentful-paint', buffered: true });`,
  });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', SLOW_4G);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  const frames: { t: number; data: Buffer }[] = [];
  cdp.on('Page.screencastFrame', (f: { data: string; metadata: { timestamp?: number }; sessionId: number }) => {
    frames.push({ t: (f.metadata.timestamp ?? 0) * 1000, data: Buffer.from(f.data, 'base64') });
    void cdp.send('Page.screencastFrameAck', { sessionId: f.sessionId }).catch(() => {});
  });
  await cdp.send('Page.startScreencast', { format: 'jpeg', quality: 60, everyNthFrame: 1 });
  const started = Date.now();
  await page.goto(server.running.url.replace('127.0.0.1', 'localhost') + path, { waitUntil: 'load', timeout: 60_000 });
  await page.waitForTimeout(2500); // let the app settle (its chunks, the bar, the details after first paint)
  await cdp.send('Page.stopScreencast');
  const navStart = (await page.evaluate('performance.timeOrigin')) as number;
  const paints = (await page.evaluate('window.__paints')) as { fcp?: number; lcp?: number };
  await context.close();
  if (Date.now() - started > 60_000) throw new Error('visit took too long');
  // Visually complete: the first frame within 1% (mean absolute difference) of the last one.
  const last = await sharp(frames.at(-1)!.data).resize(97, 211).greyscale().raw().toBuffer();
  let complete = NaN;
  for (const f of frames) {
    const px = await sharp(f.data).resize(97, 211).greyscale().raw().toBuffer();
    let diff = 0;
    for (let i = 0; i < px.length; i++) diff += Math.abs(px[i]! - last[i]!);
    if (diff / px.length / 255 < 0.01) {
      complete = f.t - navStart;
      break;
    }
  }
  return { fcp: paints.fcp ?? NaN, lcp: paints.lcp ?? NaN, complete, frames: frames.map((f) => ({ ...f, t: f.t - navStart })) };
}

/** Frames every 250 ms side by side, each labelled by its time, as one PNG. */
async function filmstrip(v: Visit, file: string): Promise<void> {
  const step = 250;
  const end = Math.max(...v.frames.map((f) => f.t));
  const picks: { t: number; data: Buffer }[] = [];
  for (let t = 0; t <= end + step; t += step) {
    const shown = [...v.frames].reverse().find((f) => f.t <= t);
    picks.push({ t, data: shown?.data ?? (await sharp({ create: { width: 390, height: 844, channels: 3, background: '#ffffff' } }).jpeg().toBuffer()) });
  }
  const w = 130;
  const h = 282;
  const tiles = await Promise.all(
    picks.map(async (p) => ({
      input: await sharp(p.data).resize(w, h).composite([{ input: Buffer.from(`<svg width="${w}" height="18"><rect width="${w}" height="18" fill="#000"/><text x="4" y="13" font-size="12" fill="#fff" font-family="sans-serif">${(p.t / 1000).toFixed(2)} s</text></svg>`), top: 0, left: 0 }]).png().toBuffer(),
    })),
  );
  await sharp({ create: { width: w * tiles.length, height: h, channels: 3, background: '#888' } })
    .composite(tiles.map((t, i) => ({ input: t.input, left: i * w, top: 0 })))
    .png()
    .toFile(file);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const servers: Server[] = [];
try {
  for (const tree of trees) servers.push(await startServer(tree, browser));
  const results = new Map<string, Visit[]>();
  for (let r = 0; r < runs; r++) {
    for (const path of paths) {
      // Alternate the order each run, so whatever else the machine does falls on every tree alike.
      const order = r % 2 ? [...servers].reverse() : servers;
      for (const s of order) {
        const v = await visit(browser, s, path);
        const key = `${s.tree}\t${path}`;
        results.set(key, [...(results.get(key) ?? []), v]);
        if (r === 0) await filmstrip(v, join(out, `${path.replaceAll('/', '_')}-${s.tree.split('/').filter(Boolean).at(-1)}.png`));
      }
    }
  }
  const lines = ['| Tree | Path | FCP ms | LCP ms | Visually complete ms | runs (complete) |', '|---|---|---|---|---|---|'];
  for (const [key, vs] of results) {
    const [tree, path] = key.split('\t');
    const m = (f: (v: Visit) => number) => median(vs.map(f).filter(Number.isFinite)).toFixed(0);
    lines.push(`| ${tree} | ${path} | ${m((v) => v.fcp)} | ${m((v) => v.lcp)} | ${m((v) => v.complete)} | ${vs.map((v) => v.complete.toFixed(0)).join(', ')} |`);
  }
  const table = lines.join('\n');
  console.log(`\nCold visits, Chromium throttled (slow 4G, 4× CPU), phone size, ${runs} runs each, medians:\n\n${table}\n\nFilmstrips: ${out}`);
  writeFileSync(join(out, 'cold-visits.md'), table + '\n');
} finally {
  for (const s of servers) {
    await s.running.stop();
    rmSync(s.data, { recursive: true, force: true });
  }
  await browser.close();
}
