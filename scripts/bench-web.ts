// `npm run bench:web -- [--runs N] [--screens a,b] [--no-build] [--no-write] [--base-url URL …]`
// Issue 20's measuring tool: Lighthouse (mobile: simulated slow 4G, 4× CPU) on every
// screen of the built app, seeded through the HTTP API with real photos; medians of N
// runs, the targets with PASS/FAIL, what Lighthouse flags; the table goes into
// docs/performance.md between <!-- bench:web:start --> and <!-- bench:web:end -->.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, repoRoot, startNode } from './bench/processes.js';
import { writeDoc } from './bench/report.js';
import {
  allPass,
  figuresOf,
  findingsList,
  findingsOf,
  median,
  medianFigures,
  medianRunIndex,
  resultsTable,
  targetsTable,
  type Figures,
  type Finding,
  type RunFindings,
  type ScreenResult,
} from './bench-web/figures.js';
import { CHROME_PATH, loginLinkHref, measure, Sessions, startChrome, type Expectation } from './bench-web/lighthouse.js';
import { cpuMark, loadAverage, otherCores } from './bench-web/load.js';
import { accounts, seedCommunity, type Account, type SeededCommunity } from './bench-web/seed.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    screens: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    'no-write': { type: 'boolean', default: false },
    'base-url': { type: 'string' },
    viewer: { type: 'string' },
    operator: { type: 'string' },
    profile: { type: 'string' },
    'keep-data': { type: 'boolean', default: false },
    check: { type: 'boolean', default: false },
    'quiet-wait': { type: 'string', default: '30' },
    reports: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

if (values.help) {
  console.log(`Usage: npm run bench:web -- [options]
  --runs N               Lighthouse runs per screen; medians are reported (default 3)
  --screens a,b          only these screens (landing, sign-in, discover, following, profile,
                         create-post, search, notifications, admin)
  --no-build             use web/dist and server/dist as they are (scripts/start.mjs still builds what is stale)
  --no-write             print only; leave docs/performance.md alone
  --keep-data            keep the seeded DATA_DIR (its path is printed)
  --check                exit 1 when a screen misses a target
  --quiet-wait S         before each run, wait up to S seconds for other work on the machine
                         to drop below half a core (default 30; 0: do not wait)
  --reports DIR          also write each run's Lighthouse result there (<screen>-<run>.json; open in
                         https://googlechrome.github.io/lighthouse/viewer/)
  --base-url URL         measure a server that is already running, without seeding; then
    --viewer NAME:PASSWORD     signs in for discover, following, profile, create-post, search, notifications
    --operator NAME:PASSWORD   signs in for admin
    --profile NAME             whose profile to open (default: the viewer's own name)
  Chromium: ${CHROME_PATH} (CHROME_PATH to change).`);
  process.exit(0);
}

const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a positive integer');
const quietWait = Number(values['quiet-wait']);
if (!(quietWait >= 0)) throw new Error('--quiet-wait must be a number of seconds');
const log = (line: string) => console.log(line);

/** Waits (at most `seconds`) until other processes use less than half a core over 2 s. */
async function waitForQuiet(seconds: number): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    const a = cpuMark();
    await new Promise((r) => setTimeout(r, 2000));
    if (otherCores(a, cpuMark()).other < 0.5) return;
  }
}

// ---------------------------------------------------------------- screens

interface Context {
  baseUrl: string;
  loginHref: string;
  viewer?: Account;
  operator?: Account;
  profile?: string;
}

interface Screen {
  id: string;
  name: string;
  as: 'anonymous' | 'viewer' | 'operator';
  url: (c: Context) => string;
  expect: (c: Context) => Expectation;
}

const SCREENS: Screen[] = [
  { id: 'landing', name: 'Landing `/`', as: 'anonymous', url: (c) => `${c.baseUrl}/`, expect: () => ({ heading: 'Shower Beer' }) },
  // The page the landing's Login link leads to (the provider's sign-in form).
  { id: 'sign-in', name: 'Provider sign-in', as: 'anonymous', url: (c) => c.loginHref, expect: () => ({ heading: 'Sign in' }) },
  {
    id: 'discover',
    name: 'Discover',
    as: 'viewer',
    url: (c) => `${c.baseUrl}/app/discover`,
    expect: () => ({ heading: 'Discover', minMedia: 3 }),
  },
  {
    id: 'following',
    name: 'Following',
    as: 'viewer',
    url: (c) => `${c.baseUrl}/app/follow-feed`,
    expect: () => ({ heading: 'Following Feed', minMedia: 3 }),
  },
  {
    id: 'profile',
    name: 'Profile (30 posts)',
    as: 'viewer',
    url: (c) => `${c.baseUrl}/app/profile/${encodeURIComponent(c.profile ?? '')}`,
    expect: (c) => ({ heading: c.profile ?? '', minMedia: values['base-url'] ? 1 : 30 }),
  },
  { id: 'create-post', name: 'Create post', as: 'viewer', url: (c) => `${c.baseUrl}/app/create-post`, expect: () => ({ heading: 'New post' }) },
  { id: 'search', name: 'Search', as: 'viewer', url: (c) => `${c.baseUrl}/app/search-profile`, expect: () => ({ heading: 'Search profiles' }) },
  {
    id: 'notifications',
    name: 'Notifications',
    as: 'viewer',
    url: (c) => `${c.baseUrl}/app/notifications`,
    expect: () => ({ heading: 'Notifications', absent: values['base-url'] ? undefined : 'No notifications yet' }),
  },
  {
    id: 'admin',
    name: 'Operator `/app/admin`',
    as: 'operator',
    url: (c) => `${c.baseUrl}/app/admin`,
    expect: () => ({ heading: 'Moderation', absent: 'Operators only' }),
  },
];

let screens = SCREENS;
if (values.screens) {
  const wanted = values.screens.split(',').map((s) => s.trim());
  const unknown = wanted.filter((w) => !SCREENS.some((s) => s.id === w));
  if (unknown.length) throw new Error(`unknown screen(s): ${unknown.join(', ')}; known: ${SCREENS.map((s) => s.id).join(', ')}`);
  screens = SCREENS.filter((s) => wanted.includes(s.id));
}

// ---------------------------------------------------------------- server

interface Server {
  child: ChildProcess;
  baseUrl: string;
  output: () => string;
  stop(): Promise<void>;
}

/** `node scripts/start.mjs`, as people run the app, on a throw-away DATA_DIR. */
async function startServer(dataDir: string, webDist: string, operator: string): Promise<Server> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  // startNode adds process.env; start.mjs is plain JavaScript (no tsx) and may build first.
  const running = await startNode(
    'scripts/start.mjs',
    {
      NODE_ENV: 'production',
      DATA_DIR: dataDir,
      WEB_DIST_DIR: webDist,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: baseUrl,
      LOG_LEVEL: 'warn',
      AUTH_PROVIDER: 'embedded',
      STORAGE_DRIVER: 'local',
      // Everyone here signs up and writes from one address, faster than a person would.
      RATE_LIMIT_AUTH_PER_MINUTE: '10000',
      RATE_LIMIT_WRITES_PER_MINUTE: '10000',
      ADMIN_USERNAMES: operator,
    },
    port,
    '/healthz',
    { nodeArgs: [], readyWithinMs: 180_000 },
  );
  return { child: running.child, baseUrl, output: running.output, stop: running.stop };
}

/**
 * A private copy of web/dist for the server to serve: in a checkout others build in
 * (scripts/start.mjs rebuilds a stale bundle, and so do test runs), web/dist can be
 * emptied and refilled with other file names in the middle of a measurement, leaving a
 * page whose scripts are gone. Checked whole: every asset index.html names is there.
 */
async function snapshotWebDist(target: string): Promise<string> {
  const source = join(repoRoot, 'web', 'dist');
  for (let attempt = 1; ; attempt++) {
    rmSync(target, { recursive: true, force: true });
    cpSync(source, target, { recursive: true });
    const index = join(target, 'index.html');
    const html = existsSync(index) ? readFileSync(index, 'utf8') : '';
    const missing = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((m) => m[1]!).filter((f) => !existsSync(join(target, f)));
    if (html !== '' && missing.length === 0) return target;
    if (attempt === 5) throw new Error(`web/dist is incomplete (${html === '' ? 'no index.html' : `missing ${missing.join(', ')}`}); build it first`);
    await new Promise((r) => setTimeout(r, 3000));
  }
}

/** A server that died or was killed mid-run leaves a page that half loaded (robots.txt failing, an interstitial…). */
async function assertServerAlive(baseUrl: string, where: string): Promise<void> {
  const alive = await fetch(`${baseUrl}/healthz`).then(
    (r) => r.ok,
    () => false,
  );
  if (alive) return;
  const how = server ? ` (exit code ${server.child.exitCode}, signal ${server.child.signalCode})` : '';
  throw new Error(`the server stopped answering during ${where}${how}; its figures are not kept`);
}

function credentials(flag: string | undefined, name: string): Account | undefined {
  if (!flag) return undefined;
  const i = flag.indexOf(':');
  if (i <= 0) throw new Error(`--${name} must be NAME:PASSWORD`);
  const username = flag.slice(0, i);
  return { username, email: '', password: flag.slice(i + 1) };
}

function git(args: string[]): string {
  const res = spawnSync('git', args, { cwd: repoRoot, encoding: 'utf8' });
  return res.status === 0 ? res.stdout.trim() : '';
}

// ---------------------------------------------------------------- main

const startedAt = new Date();
const loadAtStart = loadAverage();
log(`bench:web — ${runs} run(s) of ${screens.length} screen(s); load average ${loadAtStart}`);

let server: Server | undefined;
let workDir: string | undefined;
let community: SeededCommunity | undefined;
let chrome: Awaited<ReturnType<typeof startChrome>> | undefined;
let exitCode = 0;

try {
  const ctx: Context = { baseUrl: '', loginHref: '' };
  if (values['base-url']) {
    ctx.baseUrl = values['base-url'].replace(/\/+$/, '');
    ctx.viewer = credentials(values.viewer, 'viewer');
    ctx.operator = credentials(values.operator, 'operator');
    ctx.profile = values.profile ?? ctx.viewer?.username;
    const missing = screens.filter((s) => (s.as === 'viewer' && !ctx.viewer) || (s.as === 'operator' && !ctx.operator)).map((s) => s.id);
    if (missing.length) {
      log(`No credentials for ${missing.join(', ')} (--viewer / --operator): left out.`);
      screens = screens.filter((s) => !missing.includes(s.id));
    }
  } else {
    if (!values['no-build']) {
      log('Building the web app and the server (npm run build)…');
      const res = spawnSync('npm', ['run', 'build'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
      if (res.status !== 0) throw new Error('npm run build failed');
    }
    workDir = mkdtempSync(join(os.tmpdir(), 'shower-beer-bench-web-'));
    const dataDir = join(workDir, 'data');
    const webDist = await snapshotWebDist(join(workDir, 'web-dist'));
    const who = accounts();
    server = await startServer(dataDir, webDist, who.operator.username);
    ctx.baseUrl = server.baseUrl;
    log(`Server: node scripts/start.mjs at ${ctx.baseUrl}, DATA_DIR ${dataDir}, WEB_DIST_DIR ${webDist}`);
    log('Seeding through the HTTP API…');
    community = await seedCommunity(ctx.baseUrl, join(repoRoot, 'bench-data', 'web-photos'), who, log);
    log(
      `  seeded in ${community.seconds.toFixed(0)} s: ${community.posts.author} posts by ${community.author.username}, ${community.posts.friend} by ${community.friend.username}, ${community.posts.viewer} by ${community.viewer.username}`,
    );
    ctx.viewer = community.viewer;
    ctx.operator = community.operator;
    ctx.profile = community.author.username;
  }

  chrome = await startChrome();
  log(`Chromium: ${chrome.version} (${CHROME_PATH})`);
  if (screens.some((s) => s.id === 'sign-in')) ctx.loginHref = await loginLinkHref(chrome.browser, ctx.baseUrl);
  const sessions = new Sessions(chrome.browser, ctx.baseUrl);

  const measuringFrom = Date.now();
  const perScreen = new Map<string, { figures: Figures[]; findings: RunFindings[] }>(screens.map((s) => [s.id, { figures: [], findings: [] }]));
  const others: number[] = [];
  const steals: number[] = [];
  let lighthouseVersion = '';
  // Run-major order: a burst of load from elsewhere spreads over screens instead of sinking one.
  for (let run = 1; run <= runs; run++) {
    for (const screen of screens) {
      const account = screen.as === 'viewer' ? ctx.viewer : screen.as === 'operator' ? ctx.operator : undefined;
      await waitForQuiet(quietWait);
      const token = account ? await sessions.token(account) : undefined;
      const url = screen.url(ctx);
      let outcome: Awaited<ReturnType<typeof measure>>;
      let load: ReturnType<typeof otherCores>;
      for (let attempt = 1; ; attempt++) {
        const before = cpuMark();
        outcome = await measure(chrome.browser, url, screen.expect(ctx), token);
        load = otherCores(before, cpuMark());
        if (!outcome.lighthouseError) break;
        await assertServerAlive(ctx.baseUrl, `${screen.id} run ${run}`);
        if (attempt === 3) throw new Error(`${screen.id} (run ${run}): Lighthouse failed 3 times: ${outcome.lighthouseError}`);
        log(`  run ${run}/${runs} ${screen.id}: Lighthouse could not measure (${outcome.lighthouseError.split(':')[0]}); again`);
      }
      others.push(load.other);
      steals.push(load.steal);
      await assertServerAlive(ctx.baseUrl, `${screen.id} run ${run}`);
      if (outcome.problems.length) {
        throw new Error(`${screen.id} (run ${run}) did not show the screen it measures:\n  ${outcome.problems.join('\n  ')}`);
      }
      lighthouseVersion = outcome.lhr.lighthouseVersion;
      if (values.reports) {
        mkdirSync(values.reports, { recursive: true });
        writeFileSync(join(values.reports, `${screen.id}-${run}.json`), JSON.stringify(outcome.lhr));
      }
      const f = figuresOf(outcome.lhr);
      perScreen.get(screen.id)!.figures.push(f);
      perScreen.get(screen.id)!.findings.push(findingsOf(outcome.lhr));
      log(
        `  run ${run}/${runs} ${screen.id.padEnd(13)} perf ${String(f.performance).padStart(3)}  LCP ${(f.lcp / 1000).toFixed(2)} s  TBT ${Math.round(f.tbt)
          .toString()
          .padStart(4)} ms  CLS ${f.cls.toFixed(3)}  a11y ${f.accessibility} BP ${f.bestPractices} SEO ${f.seo}  (load average ${os.loadavg()[0]!.toFixed(1)}, other work ${load.other.toFixed(2)} cores, benchmarkIndex ${Math.round(
          f.benchmarkIndex,
        )})`,
      );
    }
  }

  const results: ScreenResult[] = screens.map((screen) => {
    const { figures, findings } = perScreen.get(screen.id)!;
    const failingCounts = new Map<string, { finding: Finding; runs: number }>();
    for (const run of findings) {
      for (const f of run.failing) {
        const key = `${f.category}/${f.id}`;
        const have = failingCounts.get(key);
        failingCounts.set(key, { finding: have?.finding ?? f, runs: (have?.runs ?? 0) + 1 });
      }
    }
    return {
      id: screen.id,
      name: screen.name,
      median: medianFigures(figures),
      runs: figures,
      findings: findings[medianRunIndex(figures)]!,
      failingCounts,
    };
  });

  const minutes = (Date.now() - measuringFrom) / 60_000;
  const bench = results.flatMap((r) => r.runs.map((f) => f.benchmarkIndex));
  const commit = git(['rev-parse', '--short', 'HEAD']);
  const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';
  const cpu = os.cpus();
  const loaded = others.filter((o) => o > 0.25).length;
  const stamp = startedAt.toISOString().slice(0, 16).replace('T', ' ');
  const passing = results.filter(allPass).length;
  const header = [
    `### Web screens (Lighthouse, mobile) — ${stamp} UTC`,
    '',
    `Lighthouse ${lighthouseVersion}, default mobile settings (Moto G Power screen; simulated slow 4G: 150 ms RTT, 1.6 Mbps down; 4× CPU slowdown) on ${chrome.version} (${CHROME_PATH}), headless; medians of ${runs} run${runs === 1 ? '' : 's'} per screen (${minutes.toFixed(0)} min in all), each in a fresh browser context with a cold cache. ` +
      (community
        ? `The built app (\`node scripts/start.mjs\`) on a new DATA_DIR seeded through the HTTP API: ${community.posts.author + community.posts.friend + community.posts.viewer} posts of ${community.photos.length} different 12-megapixel JPEGs (landscape, portrait, square; ${(
            median(community.photos.map((p) => p.bytes)) / 1e6
          ).toFixed(1)} MB each), a viewer following an author (30 posts) and a friend, likes, comments, follows and two reports. `
        : `Measured against ${ctx.baseUrl} as it was (no seeding). `) +
      'Signed-in screens carry a token from a real sign-in through the pages, put where the app keeps it (sessionStorage) before the page loads.',
    '',
    `Machine: ${cpu.length} × ${cpu[0]?.model.trim() ?? '?'}, ${Math.round(os.totalmem() / 2 ** 30)} GB RAM, Node ${process.version}; commit ${commit}${
      dirty ? ' with uncommitted changes' : ''
    }. Load average at start ${loadAtStart}, at the end ${loadAverage()}; other work during the runs (CPU not used by this bench, its Chromium or its server) median ${median(others).toFixed(
      2,
    )} cores, max ${Math.max(...others).toFixed(2)}${loaded ? ` (${loaded} of ${others.length} runs above 0.25 cores: figures under load are unreliable)` : ''}; steal max ${Math.max(...steals).toFixed(
      2,
    )} cores; Lighthouse's benchmarkIndex median ${Math.round(median(bench))} (${Math.round(Math.min(...bench))}–${Math.round(Math.max(...bench))}).`,
  ].join('\n');
  const text = `${header}

${resultsTable(results)}

#### Targets (medians): performance ≥ 98, LCP ≤ 1.8 s, TBT ≤ 50 ms, CLS ≤ 0.01; accessibility, best practices and SEO 100

${targetsTable(results)}

${passing} of ${results.length} screens meet every target.

#### What Lighthouse flags (failing audits in any run; performance opportunities of the median run)

${findingsList(results, runs)}`;
  console.log(`\n${text}\n`);
  if (loaded) log(`WARNING: ${loaded} of ${others.length} runs had more than a quarter core of other work on this machine: figures under load are unreliable.`);
  if (!values['no-write']) {
    writeDoc(join(repoRoot, 'docs', 'performance.md'), 'web', text);
    log('Written to docs/performance.md (between <!-- bench:web:start --> and <!-- bench:web:end -->).');
  }
  if (values.check && passing < results.length) exitCode = 1;
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  if (server) {
    const state = server.child.exitCode !== null || server.child.signalCode !== null ? `exited: code ${server.child.exitCode}, signal ${server.child.signalCode}` : 'still running';
    console.error(`Server (${state}), last lines of its output:\n${server.output().split('\n').slice(-20).join('\n')}`);
  }
  exitCode = 1;
} finally {
  await chrome?.close().catch(() => undefined);
  await server?.stop();
  if (workDir) {
    if (values['keep-data']) {
      log(`Kept ${workDir}. To measure it again: DATA_DIR=${join(workDir, 'data')} ADMIN_USERNAMES=${community?.operator.username ?? ''} npm start, then`);
      if (community) {
        const pair = (a: Account) => `${a.username}:${a.password}`;
        log(`  npm run bench:web -- --base-url URL --viewer ${pair(community.viewer)} --operator ${pair(community.operator)} --profile ${community.author.username}`);
      }
    }
    else rmSync(workDir, { recursive: true, force: true });
  }
}
process.exit(exitCode);
