import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';

// `E2E_BASE_URL=http://localhost:3000 npm run test:e2e` runs the suite against an app that is
// already running (with whichever provider it is configured); otherwise Playwright starts the
// real server on a throw-away data folder.
const external = process.env.E2E_BASE_URL?.replace(/\/+$/, '');
// E2E_PORT lets two checkouts run the suite side by side.
const port = Number(process.env.E2E_PORT ?? 3100);
const baseURL = external ?? `http://localhost:${port}`;

// This file is evaluated by the runner and again by every worker: make the folder once.
if (!external && !process.env.E2E_DATA_DIR) {
  process.env.E2E_DATA_DIR = mkdtempSync(join(tmpdir(), 'shower-beer-e2e-'));
}

// E2E_APP_DIR: run the server of an already built tree (CI passes the image's tree that
// `npm run test:prod -- --keep DIR` built: the suite then checks what ships, and nothing is built
// twice). Otherwise `npm start`'s script builds what is stale in this checkout and runs it.
const appDir = process.env.E2E_APP_DIR;

// The operator of the server this config starts (in its ADMIN_USERNAMES); tests/e2e/fixtures.ts
// skips operator tests when E2E_OPERATOR is not set (an external server must say its own).
if (!external) process.env.E2E_OPERATOR ??= 'e2eoperator';

export default defineConfig({
  testDir: 'tests/e2e',
  outputDir: 'test-results',
  fullyParallel: false,
  workers: 2,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['html', { open: 'never' }], ['./tests/e2e/skip-reporter.ts'], ['./tests/e2e/flaky-reporter.ts']],
  use: {
    baseURL,
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
    screenshot: 'only-on-failure',
    // A trace records every action's DOM and a screencast: kept on failure where a run has no
    // retry (a developer's), recorded only for the retry in CI, where every test runs first
    // without it (the recording cost about a fifth of the lane's time).
    trace: process.env.CI ? 'on-first-retry' : 'retain-on-failure',
    actionTimeout: 10_000,
    navigationTimeout: 20_000,
  },
  webServer: external
    ? undefined
    : {
        command: appDir ? 'node server/dist/server.js' : 'node scripts/start.mjs',
        ...(appDir ? { cwd: appDir } : {}),
        url: `${baseURL}/healthz`,
        timeout: 180_000,
        reuseExistingServer: false,
        stdout: 'pipe',
        stderr: 'pipe',
        env: {
          PORT: String(port),
          DATA_DIR: process.env.E2E_DATA_DIR!,
          PUBLIC_URL: baseURL,
          LOG_LEVEL: 'warn',
          // Every test signs people up and in from one address: keep the provider's throttle out of the way.
          RATE_LIMIT_AUTH_PER_MINUTE: '10000',
          RATE_LIMIT_WRITES_PER_MINUTE: '10000',
          // Tests that retry start new workers, each of which signs the operator up once more.
          SIGNUP_EMAIL_TAKEN_PER_HOUR: '1000',
          ADMIN_USERNAMES: process.env.E2E_OPERATOR!,
        },
      },
});
