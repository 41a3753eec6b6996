// Keycloak itself, as `compose.yaml` runs it, but as a plain Java process on 127.0.0.1:
// the server distribution `org.keycloak:keycloak-quarkus-dist` from Maven Central, in the
// version compose.yaml pins, started with compose's command (`start-dev --import-realm`) and
// compose's environment, the realm imported from keycloak/shower-beer-realm.json unchanged.
//
//   import { startKeycloak } from './keycloak.ts';
//   const kc = await startKeycloak({ appUrl: 'http://localhost:3130' });
//   ... OIDC_ISSUER=kc.issuer ...
//   await kc.stop();
//
// CLI: `npx tsx scripts/stack/keycloak.ts [--app-url http://localhost:3130]` starts it, prints
// its URLs as JSON on one line, and stops it on SIGINT/SIGTERM.
//
// The zip is fetched once with Maven (`mvn dependency:copy`; ~/.m2 keeps it) and unpacked into
// a cache outside the repository ($XDG_CACHE_HOME or ~/.cache, `shower-beer/keycloak/`). Each
// start copies that tree into a temp dir, so start-dev's H2 database (under data/) is new and
// thrown away with it: no two runs share users.
//
// start-dev re-augments the distribution for its options (dev profile, health on, dev-file database)
// before it starts: a first JVM rewrites lib/quarkus/ and exits 10, and kc.sh starts a second one
// (bin/kc.sh). That first JVM cost about 47 s of CPU of a start's 112 s here, every run. So the
// three files it writes are kept beside the distribution (`keycloak-VERSION.start-dev/`) and laid
// over each copy: Keycloak still compares the options they were built with
// (META-INF/keycloak-persisted.properties in generated-bytecode.jar) with this start's, and
// re-augments itself when they differ, exactly as with no cache at all; its result then replaces
// the kept one. What runs is still compose's command on compose's options.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { freePort } from '../prod/round-trip.js';
import { spawnTiedToParent } from './swift.js';

const repoRoot = join(import.meta.dirname, '..', '..');
export const REALM = 'shower-beer';

export interface Keycloak {
  version: string;
  /** `http://localhost:PORT`: the public URL compose calls KEYCLOAK_PUBLIC_URL. */
  baseUrl: string;
  /** The realm's issuer, the app's OIDC_ISSUER. */
  issuer: string;
  /** The bootstrap administrator of the master realm (KC_BOOTSTRAP_ADMIN_*). */
  admin: { username: string; password: string };
  /** Its console output (printed when something fails). */
  logFile: string;
  /** The app's public URL it was started for (compose's APP_PUBLIC_URL). */
  appUrl: string;
  /** Milliseconds from spawn to /health/ready answering UP. */
  startMs: number;
  /** The `started in N s` Keycloak printed itself. */
  reportedStart: string;
  /** Whether start-dev re-augmented (no kept build, or one built with other options) or used the kept one. */
  augmentation: 'kept build' | 'rebuilt';
  stop(): Promise<void>;
}

export interface StartOptions {
  /** The app's public URL (compose's APP_PUBLIC_URL): the realm's redirect URIs are made from it. */
  appUrl: string;
  /** Default: a free port. */
  port?: number;
  /**
   * Realm files imported beside keycloak/*.json, by file name: each must name a realm of its own
   * (the upgrade case imports an older release's file under another realm name, so one Keycloak
   * serves both it and the Keycloak lane: scripts/stack/keycloak-upgrade.ts).
   */
  extraRealms?: Record<string, string>;
}

interface ComposeService {
  image: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
}

function composeService(name: string): ComposeService {
  const compose = parseYaml(readFileSync(join(repoRoot, 'compose.yaml'), 'utf8')) as { services: Record<string, ComposeService> };
  const service = compose.services[name];
  if (!service) throw new Error(`compose.yaml has no ${name} service`);
  return service;
}
const composeKeycloak = () => composeService('keycloak');

/** The version compose.yaml pins (`quay.io/keycloak/keycloak:26.4.5`), so the two cannot drift. */
export function keycloakVersion(): string {
  const tag = /^[^:]+\/keycloak:(\d+\.\d+\.\d+)$/.exec(composeKeycloak().image)?.[1];
  if (!tag) throw new Error(`cannot read a Keycloak version from compose.yaml's image "${composeKeycloak().image}"`);
  return tag;
}

/** compose's `${NAME}`, `${NAME:-default}` and `${NAME:?message}`, filled from `vars`. */
export function interpolate(value: string, vars: Record<string, string | undefined>): string {
  return value.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, op: string | undefined, arg: string | undefined) => {
    const v = vars[name];
    if (v !== undefined && v !== '') return v;
    if (op === '-') return arg ?? '';
    if (op === '?') throw new Error(`compose.yaml needs ${name}: ${arg}`);
    return '';
  });
}

function run(command: string, args: string[], cwd?: string): void {
  const res = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${res.status ?? res.signal}): ${res.stderr || res.stdout || res.error?.message}`);
}

const hasCommand = (name: string) => spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;

/**
 * The unpacked distribution in the cache, fetched with Maven and unpacked the first time only.
 * Returns its folder (`…/keycloak-VERSION`) and whether this call fetched it.
 */
export function keycloakDistribution(version: string, say: (msg: string) => void = () => {}): string {
  const cache = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'shower-beer', 'keycloak');
  const dist = join(cache, `keycloak-${version}`);
  if (existsSync(join(dist, 'bin', 'kc.sh'))) return dist;
  if (!hasCommand('mvn')) throw new Error('Maven (mvn) is needed to fetch Keycloak from Maven Central');
  mkdirSync(cache, { recursive: true });
  const zip = join(cache, `keycloak-quarkus-dist-${version}.zip`);
  if (!existsSync(zip)) {
    say(`fetching org.keycloak:keycloak-quarkus-dist:${version}:zip with Maven`);
    run('mvn', ['-q', '-B', 'dependency:copy', `-Dartifact=org.keycloak:keycloak-quarkus-dist:${version}:zip`, `-DoutputDirectory=${cache}`]);
  }
  // Unpacked beside the final name, then renamed: a run cut short leaves no half tree behind.
  const partial = mkdtempSync(join(cache, 'unpacking-'));
  try {
    if (hasCommand('unzip')) run('unzip', ['-q', zip, '-d', partial]);
    else {
      run('python3', ['-m', 'zipfile', '-e', zip, partial]);
      const bin = join(partial, `keycloak-${version}`, 'bin');
      for (const f of readdirSync(bin)) if (f.endsWith('.sh')) chmodSync(join(bin, f), 0o755);
    }
    renameSync(join(partial, `keycloak-${version}`), dist);
  } finally {
    rmSync(partial, { recursive: true, force: true });
  }
  rmSync(zip, { force: true }); // ~/.m2 keeps its own copy
  return dist;
}

/** Where start-dev's augmentation of `dist` (its lib/quarkus/ folder) is kept between runs. */
const keptAugmentation = (dist: string) => `${dist}.start-dev`;

/**
 * Keeps the lib/quarkus/ that start-dev's re-augmentation wrote in `home` for the next start. Written
 * beside the final name, then renamed over it: a run cut short leaves the old one or none, never half.
 */
function keepAugmentation(home: string, dist: string): void {
  const target = keptAugmentation(dist);
  const partial = mkdtempSync(`${target}-partial-`);
  try {
    cpSync(join(home, 'lib', 'quarkus'), partial, { recursive: true });
    chmodSync(partial, 0o755); // mkdtemp's 0700, as the unpacked distribution's folders are not
    rmSync(target, { recursive: true, force: true });
    renameSync(partial, target);
  } catch {
    rmSync(partial, { recursive: true, force: true }); // only a slower next start
  }
}

async function ready(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return res.ok && ((await res.json()) as { status?: string }).status === 'UP';
  } catch {
    return false;
  }
}

export async function startKeycloak(opts: StartOptions, say: (msg: string) => void = () => {}): Promise<Keycloak> {
  const version = keycloakVersion();
  const dist = keycloakDistribution(version, say);
  const service = composeKeycloak();
  const port = opts.port ?? (await freePort());
  const managementPort = await freePort();
  const baseUrl = `http://localhost:${port}`;
  const admin = { username: 'admin', password: `kc-${randomBytes(12).toString('hex')}` };

  const dir = mkdtempSync(join(tmpdir(), 'shower-beer-keycloak-'));
  const home = join(dir, `keycloak-${version}`);
  cpSync(dist, home, { recursive: true });
  const kept = keptAugmentation(dist);
  if (existsSync(kept)) cpSync(kept, join(home, 'lib', 'quarkus'), { recursive: true });
  // compose mounts ./keycloak at data/import: the realm file goes there as it is.
  mkdirSync(join(home, 'data', 'import'), { recursive: true });
  const realms: string[] = [];
  for (const f of readdirSync(join(repoRoot, 'keycloak'))) {
    if (!f.endsWith('.json')) continue;
    copyFileSync(join(repoRoot, 'keycloak', f), join(home, 'data', 'import', f));
    realms.push(String((JSON.parse(readFileSync(join(repoRoot, 'keycloak', f), 'utf8')) as { realm?: unknown }).realm));
  }
  for (const [f, json] of Object.entries(opts.extraRealms ?? {})) {
    if (existsSync(join(home, 'data', 'import', f))) throw new Error(`extra realm file ${f} would replace keycloak/${f}`);
    writeFileSync(join(home, 'data', 'import', f), json);
    realms.push(String((JSON.parse(json) as { realm?: unknown }).realm));
  }

  // compose's environment for the service, filled as `docker compose` fills it from .env.
  const vars: Record<string, string> = {
    KC_BOOTSTRAP_ADMIN_USERNAME: admin.username,
    KC_BOOTSTRAP_ADMIN_PASSWORD: admin.password,
    KEYCLOAK_PUBLIC_URL: baseUrl,
    APP_PUBLIC_URL: opts.appUrl.replace(/\/+$/, ''),
  };
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(service.environment ?? {})) env[name] = interpolate(String(value), vars);
  // What compose gets from the container instead: its ports (8080, 9000) are free ports here.
  env.KC_HTTP_PORT = String(port);
  env.KC_HTTP_MANAGEMENT_PORT = String(managementPort);
  env.KC_HTTP_HOST = '127.0.0.1';

  const logFile = join(dir, 'keycloak.log');
  const out = openSync(logFile, 'a');
  const started = Date.now();
  const { JAVA_OPTS: _javaOpts, ...inherited } = process.env;
  const child: ChildProcess = spawnTiedToParent(join(home, 'bin', 'kc.sh'), service.command ?? ['start-dev', '--import-realm'], {
    cwd: home,
    stdio: ['ignore', out, out],
    env: { ...inherited, ...env },
  });
  closeSync(out);
  const logText = () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    process.off('exit', onExit);
    rmSync(dir, { recursive: true, force: true });
  };
  const onExit = () => {
    try {
      child.kill('SIGKILL');
    } catch {
      /* gone */
    }
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', onExit);

  try {
    // A machine shared with other builds may need longer: KEYCLOAK_START_TIMEOUT_SECONDS.
    const limit = Number(process.env.KEYCLOAK_START_TIMEOUT_SECONDS || 180);
    const deadline = Date.now() + limit * 1000;
    while (!(await ready(`http://127.0.0.1:${managementPort}/health/ready`))) {
      if (child.exitCode !== null) throw new Error(`Keycloak exited (${child.exitCode}) before it was ready`);
      if (Date.now() > deadline) throw new Error(`Keycloak was not ready within ${limit} s (KEYCLOAK_START_TIMEOUT_SECONDS)`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const log = logText();
    for (const realm of realms) if (!log.includes(`Realm '${realm}' imported`)) throw new Error(`Keycloak started but did not import realm ${realm}`);
    const rebuilt = log.includes('Updating the configuration');
    if (rebuilt) keepAugmentation(home, dist);
    return {
      version,
      baseUrl,
      issuer: `${baseUrl}/realms/${REALM}`,
      admin,
      logFile,
      appUrl: vars.APP_PUBLIC_URL!,
      startMs: Date.now() - started,
      reportedStart: /started in ([\d.]+s)/.exec(log)?.[1] ?? '?',
      augmentation: rebuilt ? 'rebuilt' : 'kept build',
      stop,
    };
  } catch (err) {
    const tail = logText().split('\n').slice(-40).join('\n');
    await stop();
    throw new Error(`${(err as Error).message}\n--- Keycloak’s output ---\n${tail}`, { cause: err });
  }
}

/**
 * compose.yaml's one-shot `keycloak-sync` service, run as compose runs it: its command in the
 * image's tree (`tree`, the image's WORKDIR), its environment filled as `docker compose` fills it,
 * Keycloak reached on this machine instead of http://keycloak:8080, and its mount of ./keycloak
 * pointing at the repository's folder (or `realmDir`). Resolves to its output; rejects if it fails.
 */
export async function runKeycloakSync(kc: Keycloak, tree: string, realmDir = join(repoRoot, 'keycloak')): Promise<string> {
  const service = composeService('keycloak-sync');
  const vars: Record<string, string> = {
    KC_BOOTSTRAP_ADMIN_USERNAME: kc.admin.username,
    KC_BOOTSTRAP_ADMIN_PASSWORD: kc.admin.password,
    KEYCLOAK_PUBLIC_URL: kc.baseUrl,
    APP_PUBLIC_URL: kc.appUrl,
  };
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(service.environment ?? {})) env[name] = interpolate(String(value), vars);
  env.KEYCLOAK_URL = kc.baseUrl;
  const mount = (service.volumes ?? []).map((v) => v.split(':')).find(([source]) => source === './keycloak');
  if (!mount?.[1]) throw new Error("compose.yaml's keycloak-sync service does not mount ./keycloak");
  const target = mount[1];
  const [command, ...args] = (service.command ?? []).map((a) => (a.startsWith(`${target}/`) ? join(realmDir, a.slice(target.length + 1)) : a));
  if (command !== 'node') throw new Error(`compose.yaml's keycloak-sync runs ${command}, not node`);
  // Not spawnSync: the upgrade case runs it while the Keycloak lane's app and Playwright wait on this process's events.
  const child = spawn(process.execPath, args, { cwd: tree, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  if (code !== 0) throw new Error(`the keycloak-sync service failed (${code ?? signal}):\n${output.trim()}`);
  return output.trim();
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const { values } = parseArgs({ options: { 'app-url': { type: 'string' }, port: { type: 'string' } } });
  const kc = await startKeycloak(
    { appUrl: values['app-url'] ?? 'http://localhost:3130', port: values.port ? Number(values.port) : undefined },
    (msg) => console.error(msg),
  );
  console.log(JSON.stringify({ version: kc.version, baseUrl: kc.baseUrl, issuer: kc.issuer, admin: kc.admin, startMs: kc.startMs }));
  const end = () => void kc.stop().then(() => process.exit(0));
  process.once('SIGINT', end);
  process.once('SIGTERM', end);
}
