// `npm run test:prod`: builds the Dockerfile without Docker, stage by stage exactly as
// written, and starts its CMD from the result in a temp folder with no node_modules
// above it, as the image does. Then it checks /readyz, /config.json, / and one full
// API round trip (sign-up on the embedded provider's pages, presign, upload, post,
// Discover, the served thumbnail).
//
// Because the Dockerfile itself is read, the image and this check cannot drift apart.
// What is emulated: FROM (a fresh root, or a copy of an earlier stage), WORKDIR, ENV,
// COPY from the build context (honouring .dockerignore), COPY --from=<stage>, and RUN
// steps that run npm, node or the repository's scripts. RUN steps that set up the
// operating system (apt-get, mkdir/chown of /data) are skipped and listed: this machine
// already has what they install.
//
//   npm run test:prod                          # every stage for real (about 5 minutes)
//   npm run test:prod -- --reuse-checkout-deps # CI: the full `npm ci` of the build stage
//                                              # takes this checkout's node_modules (the
//                                              # same lockfile, installed moments before)
//   npm run test:prod -- --keep DIR            # leave the image's /app tree in DIR (test:stack uses it)
//   npm run test:prod -- --dockerfile FILE     # check another Dockerfile
//   npm run test:prod -- --build-only --keep DIR
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, roundTrip, waitForOk } from './prod/round-trip.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  name: string | null;
  from: string;
  instructions: Instruction[];
}

export function parseDockerfile(text: string): Stage[] {
  const lines: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (current === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue; // a comment inside a continued instruction
    if (line.endsWith('\\')) {
      current += line.slice(0, -1) + ' ';
      continue;
    }
    lines.push(current + line);
    current = '';
  }
  const stages: Stage[] = [];
  for (const line of lines) {
    const match = /^(\w+)\s+(.*)$/s.exec(line);
    if (!match) throw new Error(`cannot read Dockerfile line: ${line}`);
    const op = match[1]!.toUpperCase();
    const args = match[2]!.trim();
    if (op === 'FROM') {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!from) throw new Error(`cannot read FROM ${args}`);
      stages.push({ from: from[1]!, name: from[2] ?? null, instructions: [] });
    } else {
      const stage = stages.at(-1);
      if (!stage) throw new Error(`${op} before FROM`);
      stage.instructions.push({ op, args });
    }
  }
  return stages;
}

/** .dockerignore patterns (the subset this repository uses: names, `**\/name`, `*` globs, `!` exceptions). */
function dockerignore(): (path: string) => boolean {
  const file = join(repo, '.dockerignore');
  const rules = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '' && !l.startsWith('#'))
        .map((l) => {
          const negate = l.startsWith('!');
          const pattern = (negate ? l.slice(1) : l).replace(/^\/+|\/+$/g, '');
          const body = pattern
            .split('/')
            .map((part) => (part === '**' ? '(?:.*/)?' : part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]') + '/'))
            .join('')
            .replace(/\/$/, '');
          return { negate, re: new RegExp(`^${body}(?:/.*)?$`) };
        })
    : [];
  return (path) => {
    let ignored = false;
    for (const rule of rules) if (rule.re.test(path)) ignored = !rule.negate;
    return ignored;
  };
}

function splitWords(args: string): string[] {
  const json = args.startsWith('[') ? (JSON.parse(args) as string[]) : null;
  return json ?? args.split(/\s+/).filter(Boolean);
}

interface Options {
  dockerfile: string;
  reuseCheckoutDeps: boolean;
  keep: string | null;
  buildOnly: boolean;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { dockerfile: join(repo, 'Dockerfile'), reuseCheckoutDeps: false, keep: null, buildOnly: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--reuse-checkout-deps') options.reuseCheckoutDeps = true;
    else if (arg === '--build-only') options.buildOnly = true;
    else if (arg === '--keep') options.keep = resolve(argv[++i] ?? '');
    else if (arg === '--dockerfile') options.dockerfile = resolve(argv[++i] ?? '');
    else throw new Error(`unknown option ${arg}`);
  }
  return options;
}

const log = (msg: string) => console.log(`test:prod: ${msg}`);

/** Builds every stage under `work`; returns the final stage's root, WORKDIR, ENV and CMD. */
export function buildImage(options: Options, work: string) {
  const stages = parseDockerfile(readFileSync(options.dockerfile, 'utf8'));
  const ignored = dockerignore();
  const roots = new Map<string, { root: string; workdir: string; env: Record<string, string> }>();
  let last: { root: string; workdir: string; env: Record<string, string>; cmd: string[] } | null = null;

  stages.forEach((stage, index) => {
    const root = join(work, `stage-${index}`);
    const parent = roots.get(stage.from);
    let workdir = parent?.workdir ?? '/';
    const env: Record<string, string> = { ...(parent?.env ?? {}) };
    let cmd: string[] = [];
    if (parent) cpSync(parent.root, root, { recursive: true, verbatimSymlinks: true });
    else mkdirSync(root, { recursive: true });
    log(`stage ${index}${stage.name ? ` (${stage.name})` : ''} FROM ${stage.from}`);
    // The stages run on this machine's Node: it must be the image's, or this checks another runtime
    // (and better-sqlite3 built here would not load there). .ci/run brings it (scripts/use-node.sh).
    const imageNode = /^node:(\d+)\b/.exec(stage.from)?.[1];
    if (imageNode && imageNode !== process.versions.node.split('.')[0]) {
      throw new Error(`the Dockerfile runs Node ${imageNode} (FROM ${stage.from}) but this is Node ${process.version}: \`. scripts/use-node.sh\` first`);
    }
    const inRoot = (p: string) => join(root, isAbsolute(p) ? p : join(workdir, p));

    for (const { op, args } of stage.instructions) {
      if (op === 'WORKDIR') {
        workdir = isAbsolute(args) ? args : join(workdir, args);
        mkdirSync(inRoot('.'), { recursive: true });
      } else if (op === 'ENV') {
        for (const m of args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[m[1]!] = m[2]!.replace(/^"|"$/g, '');
      } else if (op === 'CMD') {
        cmd = splitWords(args);
      } else if (op === 'COPY') {
        const words = splitWords(args);
        const flags = words.filter((w) => w.startsWith('--'));
        const paths = words.filter((w) => !w.startsWith('--'));
        const dest = paths.pop()!;
        const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
        const source = from ? roots.get(from) : null;
        if (from && !source) throw new Error(`COPY --from=${from}: no such stage before this one`);
        for (const src of paths) {
          const srcPath = source ? join(source.root, isAbsolute(src) ? src : join(source.workdir, src)) : join(repo, src);
          if (!existsSync(srcPath)) throw new Error(`COPY ${args}: ${src} does not exist`);
          const isDir = statSync(srcPath).isDirectory();
          const target = dest.endsWith('/') && !isDir ? join(inRoot(dest), src.split('/').at(-1)!) : inRoot(dest);
          mkdirSync(isDir ? target : dirname(target), { recursive: true });
          cpSync(srcPath, target, {
            recursive: true,
            verbatimSymlinks: true,
            filter: source ? undefined : (p) => !ignored(relative(repo, p)),
          });
        }
      } else if (op === 'RUN') {
        for (const step of args.split('&&').map((s) => s.trim())) {
          if (!/^(npm|node|bash scripts\/)/.test(step) || /^npm cache clean/.test(step)) {
            log(`  skipped (operating system): RUN ${step.slice(0, 70)}`);
            continue;
          }
          if (options.reuseCheckoutDeps && /^npm ci\b/.test(step) && !/--omit=dev/.test(step)) {
            // The full install of the build stage: the checkout ran the same `npm ci` on the same lockfile.
            for (const dir of ['', 'server', 'web']) {
              const from = join(repo, dir, 'node_modules');
              if (existsSync(from)) symlinkSync(from, join(inRoot(dir), 'node_modules'));
            }
            log(`  RUN ${step}: took this checkout's node_modules (--reuse-checkout-deps)`);
            continue;
          }
          log(`  RUN ${step}`);
          const started = Date.now();
          // From the machine, as a build host lends them to `docker build`: npm_config_nodedir, the headers
          // of the Node that runs the stages (scripts/use-node.sh), as the image's node has its own (without
          // it, Debian's npm builds better-sqlite3 against /usr's Node); and the machine's certificate
          // authorities for npm's registry (NODE_EXTRA_CA_CERTS, which use-node.sh sets: the official
          // Node build trusts only its bundled list, where Debian's trusts the system's). And a compiler
          // cache where the machine has one (.ci/run: ccache through CC, CXX, CCACHE_DIR and
          // CCACHE_SLOPPINESS), as a build host's cache mount: the deps stage compiles the same
          // better-sqlite3 that the checkout's install did.
          const lent = Object.fromEntries(
            (['npm_config_nodedir', 'NODE_EXTRA_CA_CERTS', 'CC', 'CXX', 'CCACHE_DIR', 'CCACHE_SLOPPINESS'] as const).flatMap((name) =>
              process.env[name] ? [[name, process.env[name]!]] : [],
            ),
          );
          const res = spawnSync('bash', ['-c', step], { cwd: inRoot('.'), stdio: 'inherit', env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? root, ...lent, ...env } });
          if (res.status !== 0) throw new Error(`RUN ${step} exited ${res.status}`);
          log(`  … ${((Date.now() - started) / 1000).toFixed(0)} s`);
        }
      } else if (['USER', 'EXPOSE', 'VOLUME', 'HEALTHCHECK', 'LABEL', 'ARG'].includes(op)) {
        // Nothing to emulate: they change how Docker runs the image, not what it holds.
      } else {
        throw new Error(`test:prod does not know the Dockerfile instruction ${op}: teach scripts/prod-image.ts`);
      }
    }
    if (stage.name) roots.set(stage.name, { root, workdir, env });
    roots.set(String(index), { root, workdir, env });
    last = { root, workdir, env, cmd };
  });
  if (!last) throw new Error('the Dockerfile has no stage');
  return last as { root: string; workdir: string; env: Record<string, string>; cmd: string[] };
}

/** The image holds the built app and production dependencies only. */
function checkTree(app: string): void {
  for (const dev of ['typescript', 'tap', 'tsx', 'vite', '@playwright/test', 'drizzle-kit', 's3rver']) {
    if (existsSync(join(app, 'node_modules', dev))) throw new Error(`dev dependency ${dev} is in the image`);
  }
  // server/dist/keycloak-sync.js: compose.yaml's keycloak-sync service runs it from this image.
  for (const need of ['server/dist/server.js', 'server/dist/keycloak-sync.js', 'web/dist/index.html', 'migrations/meta/_journal.json']) {
    if (!existsSync(join(app, need))) throw new Error(`${need} is not in the image`);
  }
  if (existsSync(join(app, 'server', 'src'))) throw new Error('server sources are in the image');
  // Node resolves packages upwards: nothing above the tree may hold node_modules.
  for (let dir = dirname(app); dir !== dirname(dir); dir = dirname(dir)) {
    if (readdirSync(dir).includes('node_modules')) throw new Error(`${dir} holds node_modules: the check would not be honest`);
  }
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const work = mkdtempSync(join(tmpdir(), 'shower-beer-image-'));
  let server: ChildProcess | null = null;
  try {
    const started = Date.now();
    const image = buildImage(options, work);
    const app = join(image.root, image.workdir);
    checkTree(app);
    log(`built the image's ${image.workdir} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    if (options.keep) {
      rmSync(options.keep, { recursive: true, force: true });
      cpSync(app, options.keep, { recursive: true, verbatimSymlinks: true });
      log(`kept the tree in ${options.keep}`);
    }
    if (options.buildOnly) return;
    if (image.cmd.length === 0) throw new Error('the final stage has no CMD');

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const dataDir = join(work, 'data');
    mkdirSync(dataDir);
    log(`starting CMD ${JSON.stringify(image.cmd)} in ${app}`);
    // The image's ENV, then what `docker run -p` and a volume would change; nothing from this shell.
    server = spawn(image.cmd[0]!, image.cmd.slice(1), {
      cwd: app,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { PATH: process.env.PATH!, HOME: work, ...image.env, HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, PUBLIC_URL: base, LOG_LEVEL: 'warn' },
    });
    const exited = new Promise<number | null>((r) => server!.on('exit', (code) => r(code)));
    await Promise.race([
      waitForOk(`${base}/healthz`, 30_000),
      exited.then((code) => Promise.reject(new Error(`the server exited with ${code} before it answered`))),
    ]);
    await roundTrip(base, (msg) => log(msg));
    log('PASS: the image starts and serves /readyz, /config.json, / and a full sign-up → post → Discover round trip');
  } finally {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((r) => server!.on('exit', r));
    }
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(`test:prod: FAIL: ${(err as Error).message}`);
    process.exit(1);
  });
}
