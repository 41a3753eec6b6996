import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A server of a spec's own (its own port and data folder), from the build the suite runs
 * (E2E_APP_DIR, CI's image tree, else this checkout's): for a spec that renames the server or
 * changes who may join, which every other spec's screens and sign-ups depend on. Its first
 * account is its operator. joining.spec.ts starts its own the same way (port offset 50).
 */
export async function startOwnServer(
  portOffset: number,
  prefix: string,
  /** More of the server's environment (federation.spec.ts turns federation on). */
  env: Record<string, string> = {},
): Promise<{ origin: string; stop: () => Promise<void> }> {
  const port = Number(process.env.E2E_PORT ?? 3100) + portOffset;
  const origin = `http://localhost:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const child: ChildProcess = spawn(process.execPath, ['server/dist/server.js'], {
    cwd: process.env.E2E_APP_DIR ?? process.cwd(),
    env: {
      ...process.env,
      PORT: String(port),
      DATA_DIR: dataDir,
      PUBLIC_URL: origin,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_AUTH_PER_MINUTE: '10000',
      RATE_LIMIT_WRITES_PER_MINUTE: '10000',
      ADMIN_USERNAMES: '',
      // No e-mail: "Forgot password?" sends people to the operator.
      SMTP_URL: '',
      ...env,
    },
    stdio: 'inherit',
  });
  const stop = async () => {
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline && child.exitCode === null) {
    if (await fetch(`${origin}/healthz`).then((r) => r.ok, () => false)) return { origin, stop };
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
  throw new Error(`the server on ${origin} did not start`);
}
