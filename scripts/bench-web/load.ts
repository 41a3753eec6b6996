// How busy the machine was with work that is not this bench's during a run. The load
// average cannot say: Chromium and the server this bench started keep the cores busy
// themselves. So: CPU time of the whole machine (/proc/stat) minus that of this process
// and every process below it (Chromium and its renderers, the server), including
// children that exited and were reaped in between (cutime/cstime of their parent).
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

export interface CpuMark {
  at: number;
  /** Busy CPU time of every core, ticks. */
  machine: number;
  /** Time the hypervisor gave to others while this VM wanted to run, ticks. */
  steal: number;
  /** This process and its descendants (with reaped children), ticks. */
  own: number;
}

function stat(pid: string): { ppid: number; ticks: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    // After "pid (comm) ": state ppid … utime(12) stime(13) cutime(14) cstime(15)
    return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) };
  } catch {
    return null; // gone meanwhile
  }
}

export function cpuMark(): CpuMark {
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = readFileSync('/proc/stat', 'utf8')
    .split('\n', 1)[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const procs = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = stat(entry);
    if (s) procs.set(Number(entry), s);
  }
  const mine = new Set([process.pid]);
  // Parents come before children often but not always: repeat until nothing is added.
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, s] of procs) {
      if (!mine.has(pid) && mine.has(s.ppid)) {
        mine.add(pid);
        grew = true;
      }
    }
  }
  let own = 0;
  for (const pid of mine) own += procs.get(pid)?.ticks ?? 0;
  return { at: performance.now(), machine: user + nice + system + irq + softirq, steal, own };
}

/** Cores' worth of other work, and of steal, between two marks. */
export function otherCores(a: CpuMark, b: CpuMark): { other: number; steal: number } {
  const seconds = (b.at - a.at) / 1000;
  const cores = (ticks: number) => ticks / TICKS_PER_SECOND / seconds;
  return { other: Math.max(0, cores(b.machine - a.machine - (b.own - a.own))), steal: cores(b.steal - a.steal) };
}

export const loadAverage = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
