// Runs the Playwright suite against the app signed in through a real OpenID provider that
// already runs (Keycloak, scripts/stack/keycloak.ts, or Glewlwyd, scripts/stack/glewlwyd.ts):
// starts the app with AUTH_PROVIDER=oidc pointed at it, waits for /readyz, runs
// `npx playwright test` with E2E_BASE_URL, and stops the app, whatever happens.
// As a command it starts Glewlwyd itself and exits with Playwright's status.
//
//   npm run build && npx tsx scripts/stack/run-oidc-e2e.ts
//   npx tsx scripts/stack/run-oidc-e2e.ts --app-port 3130 --app-command "node server/dist/server.js" -- tests/e2e/auth.spec.ts
//
// For a bigger runner (test:stack): import { runE2eThroughProvider } and pass the provider,
// the app's command, port and extra env (e.g. STORAGE_DRIVER=s3 with Swift's settings).
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startGlewlwyd, type Glewlwyd } from './glewlwyd.ts';

export const repoRoot = join(import.meta.dirname, '..', '..');

/** An OpenID provider that already runs, as the app and the suite need to know it. */
export interface Provider {
  kind: 'keycloak' | 'glewlwyd';
  /** OIDC_ISSUER: the `iss` of its tokens. */
  issuer: string;
  clientId: string;
  /** OIDC_AUDIENCE, when it is not the client id. */
  audience?: string;
  /** OIDC_LOGOUT_URL, when the discovery document's end_session_endpoint must not be used. */
  logoutUrl?: string;
  /** OIDC_ACCOUNT_URL: the provider's own account page, linked from "Delete account". */
  accountUrl?: string;
  /** Its log, copied next to Playwright's report when something fails. */
  logFile: string;
  /** What the suite needs to reach it (admin API URLs and accounts). */
  e2eEnv: Record<string, string>;
}

export interface RunOptions {
  provider: Provider;
  /** Shell command that starts the app (cwd: appCwd). Default: `node server/dist/server.js`. */
  appCommand?: string;
  appCwd?: string;
  /** Port the app listens on (PORT) and Playwright talks to. Default: E2E_PORT or 3130. */
  appPort?: number;
  /** PUBLIC_URL; default http://localhost:<appPort>. */
  publicUrl?: string;
  /** Extra env for the app (wins over the defaults here, e.g. STORAGE_DRIVER=s3 and S3_*). */
  appEnv?: Record<string, string>;
  /** Arguments after `playwright test` (a spec file, --grep …). */
  playwrightArgs?: string[];
  /** Extra env for Playwright (e.g. E2E_SIZES=phone, tests/e2e/fixtures.ts). */
  playwrightEnv?: Record<string, string>;
}

export interface RunResult {
  exitCode: number;
  appStartMs: number;
  playwrightMs: number;
}

const tail = (file: string, lines = 40) => {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no output)';
  }
};

function stopGroup(child: ChildProcess | null, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null || !child.pid) return Promise.resolve();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    process.kill(-child.pid, signal);
  } catch {
    /* gone */
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }, 25_000);
  return exited.finally(() => clearTimeout(timer));
}

/** Starts the app with AUTH_PROVIDER=oidc against `provider`, runs Playwright through it, stops the app. */
export async function runE2eThroughProvider(opts: RunOptions): Promise<RunResult> {
  const { provider } = opts;
  const port = opts.appPort ?? Number(process.env.E2E_PORT ?? 3130);
  const publicUrl = (opts.publicUrl ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const work = mkdtempSync(join(tmpdir(), 'shower-beer-oidc-e2e-'));
  const appLog = join(work, 'app.log');
  let app: ChildProcess | null = null;
  const result: RunResult = { exitCode: 1, appStartMs: 0, playwrightMs: 0 };
  const onSignal = () => void stopGroup(app, 'SIGKILL');
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const keepLogs = () => {
    // Whole logs next to Playwright's report (the temp dirs go away).
    const keep = join(repoRoot, 'test-results', `stack-logs-${provider.kind}`);
    mkdirSync(keep, { recursive: true });
    copyFileSync(appLog, join(keep, 'app.log'));
    copyFileSync(provider.logFile, join(keep, `${provider.kind}.log`));
    console.error(`Full logs: ${keep}`);
  };
  try {
    const appStarted = Date.now();
    const out = openSync(appLog, 'a');
    app = spawn(opts.appCommand ?? 'node server/dist/server.js', {
      cwd: opts.appCwd ?? repoRoot,
      shell: true,
      detached: true, // its own process group, so the whole command stops with it
      stdio: ['ignore', out, out],
      env: {
        ...process.env,
        PORT: String(port),
        PUBLIC_URL: publicUrl,
        DATA_DIR: join(work, 'data'),
        LOG_LEVEL: 'warn',
        STORAGE_DRIVER: 'local',
        AUTH_PROVIDER: 'oidc',
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: provider.clientId,
        ...(provider.audience ? { OIDC_AUDIENCE: provider.audience } : {}),
        ...(provider.logoutUrl ? { OIDC_LOGOUT_URL: provider.logoutUrl } : {}),
        ...(provider.accountUrl ? { OIDC_ACCOUNT_URL: provider.accountUrl } : {}),
        // Every test signs people in from one address.
        RATE_LIMIT_AUTH_PER_MINUTE: '10000',
        RATE_LIMIT_WRITES_PER_MINUTE: '10000',
        ...opts.appEnv,
      },
    });
    closeSync(out);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (app.exitCode !== null) throw new Error(`the app exited (${app.exitCode}) before it was ready`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1_000) });
        if (res.ok) break;
      } catch {
        /* not listening yet */
      }
      if (Date.now() > deadline) throw new Error('the app was not ready within 60 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    result.appStartMs = Date.now() - appStarted;
    console.log(`App ready in ${result.appStartMs} ms at ${publicUrl}, signing in through ${provider.kind} (${provider.issuer})`);

    const pwStarted = Date.now();
    const pw = spawn('npx', ['playwright', 'test', ...(opts.playwrightArgs ?? [])], {
      cwd: repoRoot,
      stdio: 'inherit',
      env: { ...process.env, E2E_BASE_URL: publicUrl, E2E_PROVIDER: provider.kind, ...provider.e2eEnv, ...opts.playwrightEnv },
    });
    result.exitCode = await new Promise<number>((resolve) => pw.once('exit', (code) => resolve(code ?? 1)));
    result.playwrightMs = Date.now() - pwStarted;
    if (result.exitCode !== 0) {
      console.error(`--- app log (${appLog}) ---\n${tail(appLog)}`);
      console.error(`--- ${provider.kind} log (${provider.logFile}) ---\n${tail(provider.logFile)}`);
      keepLogs();
    }
    return result;
  } catch (err) {
    console.error(`run-oidc-e2e: ${(err as Error).message}`);
    console.error(`--- app log ---\n${tail(appLog)}`);
    console.error(`--- ${provider.kind} log ---\n${tail(provider.logFile)}`);
    return result;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await stopGroup(app);
    rmSync(work, { recursive: true, force: true });
  }
}

/** Glewlwyd as a Provider for the app and the suite. */
export function glewlwydProvider(idp: Glewlwyd): Provider {
  return {
    kind: 'glewlwyd',
    issuer: idp.issuer,
    clientId: idp.clientId,
    // Glewlwyd's end_session does nothing without an ID token (the app holds none with
    // response_type=token): keep the browser off it; prompt=login does the rest.
    logoutUrl: 'none',
    logFile: idp.logFile,
    e2eEnv: { E2E_GLEWLWYD_ADMIN_URL: idp.adminUrl },
  };
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      'app-command': { type: 'string' },
      'app-port': { type: 'string' },
      'public-url': { type: 'string' },
    },
  });
  const appPort = values['app-port'] ? Number(values['app-port']) : Number(process.env.E2E_PORT ?? 3130);
  const publicUrl = values['public-url'] ?? `http://localhost:${appPort}`;
  const idp = await startGlewlwyd({ appUrl: publicUrl });
  console.log(`Glewlwyd ready in ${idp.startMs} ms: ${idp.issuer}`);
  try {
    const res = await runE2eThroughProvider({
      provider: glewlwydProvider(idp),
      appCommand: values['app-command'],
      appPort,
      publicUrl,
      playwrightArgs: positionals,
    });
    console.log(`run-oidc-e2e: exit ${res.exitCode}; app ${res.appStartMs} ms, Playwright ${Math.round(res.playwrightMs / 1000)} s`);
    process.exitCode = res.exitCode;
  } finally {
    await idp.stop();
  }
}
