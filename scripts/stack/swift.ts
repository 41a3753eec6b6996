/**
 * A one-node OpenStack Swift with its S3 API on 127.0.0.1, run as plain processes from a temp dir
 * (memcached, account, container and object servers, proxy). Swift checks SigV4 signatures for
 * real, so presigned uploads, expiry and tampering can be tested against it.
 *
 *   import { startSwift } from './swift.ts';
 *   const swift = await startSwift({ appOrigins: ['http://localhost:3000'] });
 *   // swift.endpoint, swift.region, swift.accessKey, swift.secretKey
 *   await swift.stop();
 *
 * As a command: `npx tsx scripts/stack/swift.ts --origin http://localhost:3000` prints the S3_*
 * settings for the app as KEY=value lines on stdout and runs until SIGINT/SIGTERM.
 *
 * Needs the Debian packages swift swift-proxy swift-account swift-container swift-object memcached
 * (`apt-get install --no-install-recommends …`: they start nothing themselves; /etc/swift/swift.conf
 * as packaged is used) and a temp dir (TMPDIR) on a filesystem with user.* xattrs (ext4, xfs,
 * tmpfs). Every process is started so that it dies with this one, even on SIGKILL; the temp dir
 * of a parent killed that way is removed by the next start.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface SwiftOptions {
  /** Origins (scheme://host[:port]) of the web app: allowed to PUT to presigned URLs from a browser. */
  appOrigins: string[];
  /** How long to wait for every process to answer (default 30 s). */
  readyTimeoutMs?: number;
}

export interface Swift {
  /** The S3 endpoint, http://127.0.0.1:PORT (path-style buckets). */
  endpoint: string;
  region: string;
  accessKey: string;
  secretKey: string;
  /** The temp dir holding rings, configs, data and the log; removed by stop(). */
  dir: string;
  /** Every process's output (Swift runs with -v, so its log lines land here). */
  logFile: string;
  /** The processes started (memcached, account-server, container-server, object-server, proxy-server). */
  processes: { name: string; pid: number }[];
  /** The last lines of the log, for a failure message. */
  logTail(lines?: number): string;
  /** Stops every process and removes the temp dir. Safe to call twice. */
  stop(): Promise<void>;
}

const PYTHON = '/usr/bin/python3';
const REGION = 'us-east-1';
const ACCESS_KEY = 'test:tester';
const SECRET_KEY = 'testing';

/** What must exist, and the Debian package that installs it. */
const REQUIRED: [path: string, pkg: string][] = [
  [PYTHON, 'python3'],
  ['/usr/bin/swift-ring-builder', 'swift'],
  ['/etc/swift/swift.conf', 'swift'],
  ['/usr/bin/swift-proxy-server', 'swift-proxy'],
  ['/usr/bin/swift-account-server', 'swift-account'],
  ['/usr/bin/swift-container-server', 'swift-container'],
  ['/usr/bin/swift-object-server', 'swift-object'],
  ['/usr/bin/memcached', 'memcached'],
];

export const SWIFT_PACKAGES = 'swift swift-proxy swift-account swift-container swift-object memcached';

/** The Debian packages that are missing for startSwift (empty when it can run). */
export function missingSwiftPackages(): string[] {
  const missing = new Set<string>();
  for (const [path, pkg] of REQUIRED) {
    try {
      accessSync(path, constants.R_OK);
    } catch {
      missing.add(pkg);
    }
  }
  return [...missing];
}

/** Free loopback ports, all held open at once so they differ from each other. */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: n }, () => {
      const srv = createServer();
      return new Promise<typeof srv>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(0, '127.0.0.1', () => resolve(srv));
      });
    }),
  );
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  return ports;
}

/**
 * Starts `command` (an absolute path) so that the kernel kills it when this process dies, even by
 * SIGKILL: a Python shim sets PR_SET_PDEATHSIG, which exec keeps, then execs the command. For
 * servers that must not outlive the test or script that started them.
 */
export function spawnTiedToParent(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  const shim = [
    'import ctypes, os, signal, sys',
    'ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)',
    // The parent may have died before prctl: then nobody would send the signal.
    'if os.getppid() != int(sys.argv[1]): os._exit(1)',
    'os.execv(sys.argv[2], sys.argv[2:])',
  ].join('\n');
  return spawn(PYTHON, ['-c', shim, String(process.pid), command, ...args], options);
}

const SERVERS = ['account', 'container', 'object'] as const;

function serverConf(dir: string, kind: (typeof SERVERS)[number], port: number): string {
  return `[DEFAULT]
devices = ${join(dir, 'srv')}
mount_check = false
bind_ip = 127.0.0.1
bind_port = ${port}
# A port taken since it was found fails in 2 s instead of Swift's 30, and startSwift tries others.
bind_timeout = 2
workers = 0
swift_dir = ${dir}
disable_fallocate = true
log_name = ${kind}-server

[pipeline:main]
pipeline = healthcheck ${kind}-server

[app:${kind}-server]
use = egg:swift#${kind}

[filter:healthcheck]
use = egg:swift#healthcheck
`;
}

function proxyConf(dir: string, port: number, memcachedPort: number, origins: string[]): string {
  const allowed = origins.join(',');
  return `[DEFAULT]
bind_ip = 127.0.0.1
bind_port = ${port}
bind_timeout = 2
workers = 0
swift_dir = ${dir}
log_name = proxy-server

[pipeline:main]
# s3api before tempauth: s3api turns the SigV4 request into one tempauth can check.
# slo and dlo: s3api needs them for multipart uploads (the app's writes past 16 MB).
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo versioned_writes proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
# CORS headers on the answers to the browser's PUT (success only: error answers carry none).
cors_allow_origin = ${allowed}
cors_expose_headers = ETag

[filter:s3api]
use = egg:swift#s3api
location = ${REGION}
# Answers the browser's preflight for S3 requests (PutBucketCors is not implemented).
cors_preflight_allow_origin = ${allowed}

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = ${SECRET_KEY} .admin

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:${memcachedPort}

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:gatekeeper]
use = egg:swift#gatekeeper

[filter:healthcheck]
use = egg:swift#healthcheck

[filter:proxy-logging]
use = egg:swift#proxy_logging

[filter:listing_formats]
use = egg:swift#listing_formats

[filter:copy]
use = egg:swift#copy

[filter:slo]
use = egg:swift#slo

[filter:dlo]
use = egg:swift#dlo

[filter:versioned_writes]
use = egg:swift#versioned_writes
`;
}

/** swift-ring-builder create/add/rebalance for the three rings, in one Python process (each run costs ~1 s of imports). */
function buildRings(dir: string, ports: Record<(typeof SERVERS)[number], number>, logFd: number) {
  const commands = SERVERS.flatMap((kind) => {
    const builder = join(dir, `${kind}.builder`);
    return [
      [builder, 'create', '8', '1', '1'],
      [builder, 'add', `r1z1-127.0.0.1:${ports[kind]}/d1`, '100'],
      [builder, 'rebalance'],
    ];
  });
  const script = [
    'import json, os, sys',
    '# Swift keeps object metadata in user.* xattrs: say so now rather than fail every PUT later.',
    'try:',
    "    os.setxattr(sys.argv[2], 'user.swift.check', b'1')",
    'except OSError as e:',
    "    sys.exit('%s has no user.* xattrs (%s): point TMPDIR at ext4, xfs or tmpfs' % (sys.argv[2], e))",
    'from swift.cli.ringbuilder import main',
    'for args in json.loads(sys.argv[1]):',
    '    try:',
    "        main(['swift-ring-builder'] + args)",
    '    except SystemExit as e:',
    '        if e.code not in (None, 0, 1):',  // 1 = done with warnings
    "            sys.exit('swift-ring-builder %s failed (%s)' % (' '.join(args), e.code))",
  ].join('\n');
  const res = spawnSync(PYTHON, ['-c', script, JSON.stringify(commands), join(dir, 'srv', 'd1')], {
    stdio: ['ignore', logFd, logFd],
    timeout: 60_000,
  });
  if (res.status !== 0) throw new Error(`building the Swift rings failed (exit ${res.status ?? res.signal})`);
  for (const kind of SERVERS) {
    if (!existsSync(join(dir, `${kind}.ring.gz`))) throw new Error(`swift-ring-builder made no ${kind}.ring.gz`);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.ok;
  } catch {
    return false;
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function checkOrigin(origin: string): string {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new Error(`startSwift: app origin "${origin}" is not a URL`);
  }
  if (url.origin !== origin.replace(/\/+$/, '')) throw new Error(`startSwift: "${origin}" is not an origin (scheme://host[:port], no path)`);
  return url.origin;
}

const DIR_PREFIX = 'shower-beer-swift-';

/**
 * Removes the temp dirs of earlier runs whose parent was killed outright (SIGKILL runs no exit
 * handler; the kernel still killed their processes). Each dir names its owner's pid.
 */
function removeOrphanedDirs() {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(DIR_PREFIX)) continue;
    const dir = join(tmpdir(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, 'owner.pid'), 'utf8'));
    } catch {
      continue; // being set up right now, or not ours
    }
    if (!Number.isInteger(owner) || owner <= 0) continue;
    try {
      process.kill(owner, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') rmSync(dir, { recursive: true, force: true });
    }
  }
}

/** Starts Swift and resolves once the proxy and every server answer /healthcheck. */
export async function startSwift(options: SwiftOptions): Promise<Swift> {
  const missing = missingSwiftPackages();
  if (missing.length) {
    throw new Error(
      `OpenStack Swift is not installed (missing: ${missing.join(', ')}). ` +
        `Install it with: apt-get install --no-install-recommends ${SWIFT_PACKAGES}`,
    );
  }
  const origins = options.appOrigins.map(checkOrigin);
  if (!origins.length) throw new Error('startSwift: give at least one app origin');
  removeOrphanedDirs();
  // The free ports are found before the servers bind them: on a busy machine another program
  // can take one in between. That server then exits at once, and a new set of ports is tried.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(origins, options.readyTimeoutMs ?? 30_000);
    } catch (err) {
      if (attempt >= 3 || !/Could not bind|Address already in use/.test((err as Error).message)) throw err;
    }
  }
}

async function startOnce(origins: string[], readyTimeoutMs: number): Promise<Swift> {
  const dir = mkdtempSync(join(tmpdir(), DIR_PREFIX));
  writeFileSync(join(dir, 'owner.pid'), String(process.pid));
  const logFile = join(dir, 'swift.log');
  const logFd = openSync(logFile, 'a');
  const children: { name: string; child: ChildProcess }[] = [];
  let stopped = false;

  const logTail = (lines = 80) => {
    try {
      return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  };

  // Last resort when the parent exits without stop(): the kernel kills the children anyway
  // (PDEATHSIG); this also removes the temp dir.
  const onExit = () => {
    for (const { child } of children) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', onExit);
    await Promise.all(
      children.map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const force = setTimeout(() => child.kill('SIGKILL'), 3000);
            child.once('exit', () => {
              clearTimeout(force);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
    try {
      closeSync(logFd);
    } catch {
      // already closed
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const [memcachedPort, accountPort, containerPort, objectPort, proxyPort] = await freePorts(5);
    const ports = { account: accountPort!, container: containerPort!, object: objectPort! };
    mkdirSync(join(dir, 'srv', 'd1'), { recursive: true });
    buildRings(dir, ports, logFd);

    const run = (name: string, command: string[]) => {
      const child = spawnTiedToParent(command[0]!, command.slice(1), {
        cwd: dir,
        stdio: ['ignore', logFd, logFd],
      });
      child.on('error', (err) => writeFileSync(logFile, `[${name}] ${err.message}\n`, { flag: 'a' }));
      children.push({ name, child });
    };
    const memcachedArgs = ['/usr/bin/memcached', '-l', '127.0.0.1', '-p', String(memcachedPort), '-U', '0', '-m', '16'];
    if (process.getuid?.() === 0) memcachedArgs.push('-u', 'root');
    run('memcached', memcachedArgs);
    for (const kind of SERVERS) {
      const conf = join(dir, `${kind}-server.conf`);
      writeFileSync(conf, serverConf(dir, kind, ports[kind]));
      run(`${kind}-server`, [PYTHON, `/usr/bin/swift-${kind}-server`, conf, '-v']);
    }
    const proxy = join(dir, 'proxy-server.conf');
    writeFileSync(proxy, proxyConf(dir, proxyPort!, memcachedPort!, origins));
    run('proxy-server', [PYTHON, '/usr/bin/swift-proxy-server', proxy, '-v']);

    const deadline = Date.now() + readyTimeoutMs;
    const pending = new Map<string, () => Promise<boolean>>([
      ['memcached', () => accepts(memcachedPort!)],
      ...SERVERS.map((kind) => [`${kind}-server`, () => answers(`http://127.0.0.1:${ports[kind]}/healthcheck`)] as const),
      ['proxy-server', () => answers(`http://127.0.0.1:${proxyPort}/healthcheck`)],
    ]);
    while (pending.size) {
      const died = children.find(({ child }) => child.exitCode !== null || child.signalCode !== null);
      if (died) throw new Error(`${died.name} exited (${died.child.exitCode ?? died.child.signalCode}) while Swift was starting`);
      if (Date.now() > deadline) throw new Error(`Swift did not get ready in time: still waiting for ${[...pending.keys()].join(', ')}`);
      for (const [name, ready] of [...pending]) if (await ready()) pending.delete(name);
      if (pending.size) await sleep(100);
    }

    return {
      endpoint: `http://127.0.0.1:${proxyPort}`,
      region: REGION,
      accessKey: ACCESS_KEY,
      secretKey: SECRET_KEY,
      dir,
      logFile,
      processes: children.map(({ name, child }) => ({ name, pid: child.pid! })),
      logTail,
      stop,
    };
  } catch (err) {
    const message = `${(err as Error).message}\n--- Swift log (${logFile}) ---\n${logTail()}`;
    await stop();
    throw new Error(message, { cause: err });
  }
}

async function cli(argv: string[]) {
  const origins: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--origin' && argv[i + 1]) origins.push(argv[++i]!);
    else if (argv[i]?.startsWith('--origin=')) origins.push(argv[i]!.slice('--origin='.length));
    else {
      console.error('usage: tsx scripts/stack/swift.ts --origin http://localhost:3000 [--origin …]');
      process.exit(2);
    }
  }
  const started = Date.now();
  const swift = await startSwift({ appOrigins: origins.length ? origins : ['http://localhost:3000'] });
  console.error(`Swift ready in ${((Date.now() - started) / 1000).toFixed(1)} s (log: ${swift.logFile}); Ctrl-C stops it`);
  // Throw-away test credentials of this local server, printed so a caller can pass them on.
  console.log(`S3_ENDPOINT=${swift.endpoint}`);
  console.log(`S3_PUBLIC_ENDPOINT=${swift.endpoint}`);
  console.log(`S3_REGION=${swift.region}`);
  console.log(`S3_ACCESS_KEY=${swift.accessKey}`);
  console.log(`S3_SECRET_KEY=${swift.secretKey}`);
  const shutdown = () => void swift.stop().then(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  cli(process.argv.slice(2)).catch((err: unknown) => {
    console.error((err as Error).message);
    process.exit(1);
  });
}
