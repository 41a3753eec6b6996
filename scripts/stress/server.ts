import { spawn, type ChildProcess } from 'node:child_process';

export { freePort, repoRoot } from '../bench/processes.js';
import { repoRoot } from '../bench/processes.js';

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** The last output, for error messages. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the real server (tsx on the sources, or the build) and waits until /readyz answers 200. */
export async function startServer(env: Record<string, string>, port: number, mode: 'tsx' | 'built', entry?: string): Promise<ServerProcess> {
  const args = mode === 'built' ? [entry ?? 'server/dist/server.js'] : ['--import', 'tsx', entry ?? 'server/src/server.ts'];
  const child = spawn(process.execPath, args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited while starting:\n${out}`);
    try {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server was not ready within 60 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, url, output: () => out, exited };
}
