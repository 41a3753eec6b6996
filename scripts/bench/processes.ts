import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const repoRoot = join(import.meta.dirname, '..', '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface Running {
  child: ChildProcess;
  pid: number;
  url: string;
  /** Last lines the process printed (for errors). */
  output: () => string;
  stop(): Promise<void>;
}

/**
 * Starts a Node process running a TypeScript entry through tsx's loader (no
 * build step, and its pid is the server itself, so /proc/<pid> is the server's),
 * or with `nodeArgs: []` a plain JavaScript entry; ready when `readyPath` answers 2xx.
 */
export async function startNode(
  entry: string,
  env: Record<string, string>,
  port: number,
  readyPath: string,
  {
    nodeArgs = ['--import', 'tsx'],
    readyWithinMs = 60_000,
    cwd = repoRoot,
  }: { nodeArgs?: string[]; readyWithinMs?: number; /** Another tree's checkout (bench --baseline). */ cwd?: string } = {},
): Promise<Running> {
  const child = spawn(process.execPath, [...nodeArgs, entry], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-8000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyWithinMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${entry} exited (${child.exitCode}):\n${out}`);
    try {
      const res = await fetch(url + readyPath);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${entry} did not become ready in ${readyWithinMs / 1000} s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    pid: child.pid!,
    url,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** User + system CPU time of a process so far, in microseconds. */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after "pid (comm) ".
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
}

/** VmRSS and VmHWM (peak) of a process, in bytes. */
export function memory(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** Resets VmHWM to the current RSS (Linux ≥ 4.0); false when not allowed. */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export interface CpuSnapshot {
  /** Busy CPU time of the whole machine (every core), µs. */
  machine: number;
  /** Time the hypervisor gave to others while this VM wanted to run, µs. */
  steal: number;
  /** This process and its children that have exited (the servers it stopped), µs. */
  own: number;
  at: number;
}

/**
 * Where the machine's CPU time went, to tell this bench's own load (the load
 * generator in this process, the servers it started) from other work: the
 * load average cannot, since the bench itself keeps two cores busy.
 */
export function cpuSnapshot(): CpuSnapshot {
  const total = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = total;
  const self = readFileSync('/proc/self/stat', 'utf8');
  const f = self.slice(self.lastIndexOf(')') + 2).split(' ');
  // utime, stime, cutime, cstime are fields 14-17 of the line, 12-15 after "pid (comm) ".
  const own = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  const us = (ticks: number) => (ticks * 1e6) / TICKS_PER_SECOND;
  return { machine: us(user + nice + system + irq + softirq), steal: us(steal), own: us(own), at: performance.now() };
}

/** Cores' worth of CPU used by other work, and stolen, between two snapshots (servers still running count as other). */
export function otherWork(a: CpuSnapshot, b: CpuSnapshot): { otherCores: number; stealCores: number } {
  const wall = (b.at - a.at) * 1000;
  return { otherCores: Math.max(0, b.machine - a.machine - (b.own - a.own)) / wall, stealCores: (b.steal - a.steal) / wall };
}

/** The environment a bench server runs with: embedded sign-in, local storage, no write budget in the way. */
export function benchServerEnv(dataDir: string, port: number, logLevel = 'warn'): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: logLevel,
    RATE_LIMIT_WRITES_PER_MINUTE: '100000000',
    STORAGE_DRIVER: 'local',
    AUTH_PROVIDER: 'embedded',
  };
}
