// The browser suite a second time, against a server that is already running
// (E2E_BASE_URL), as a user's CI does with the composed stack: start the app
// here on a throw-away DATA_DIR, run Playwright at it, stop the app.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const port = Number(process.env.E2E_EXTERNAL_PORT ?? 3200);
const baseUrl = `http://localhost:${port}`;
// A name the server makes an operator, so the operator's tests run here too.
const operator = process.env.E2E_OPERATOR ?? 'e2eoperator';
const dataDir = mkdtempSync(join(tmpdir(), 'shower-beer-e2e-external-'));

const server = spawn(process.execPath, ['scripts/start.mjs'], {
  cwd: root,
  stdio: ['ignore', 'inherit', 'inherit'],
  env: {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    PUBLIC_URL: baseUrl,
    LOG_LEVEL: 'warn',
    // Every test signs people up and in from one address.
    RATE_LIMIT_AUTH_PER_MINUTE: '10000',
    RATE_LIMIT_WRITES_PER_MINUTE: '10000',
    ADMIN_USERNAMES: operator,
  },
});
let exited = false;
server.on('exit', () => (exited = true));

async function waitForHealth(deadline) {
  while (Date.now() < deadline) {
    if (exited) throw new Error('the server exited before it was ready');
    try {
      const res = await fetch(`${baseUrl}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the server did not answer ${baseUrl}/healthz in time`);
}

let status = 1;
try {
  await waitForHealth(Date.now() + 180_000);
  console.log(`Running the browser suite against the already running server at ${baseUrl}`);
  const res = spawnSync('npx', ['playwright', 'test', ...process.argv.slice(2)], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, E2E_BASE_URL: baseUrl, E2E_OPERATOR: operator },
  });
  status = res.status ?? 1;
} catch (err) {
  console.error(err.message);
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => (exited ? r() : server.on('exit', r)));
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(status);
