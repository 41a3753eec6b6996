import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { findAppRoot } from '../../src/kernel/config.js';

const root = findAppRoot();

/** The secrets compose.yaml requires (`${NAME:?…}`). */
const requiredSecrets = [...new Set([...readFileSync(join(root, 'compose.yaml'), 'utf8').matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((m) => m[1]!))];

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
}
interface Workflow {
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  jobs: Record<string, { 'runs-on': string; env?: Record<string, string>; steps: Step[]; 'timeout-minutes'?: number }>;
}

t.test('the users\' CI workflow: .env, compose up --wait, Playwright\'s Chromium, report on failure, teardown always', async (t) => {
  const text = readFileSync(join(root, '.github', 'workflows', 'compose-e2e.yml'), 'utf8');
  const wf = parse(text) as Workflow; // throws on invalid YAML
  t.ok(wf.on.push !== undefined && wf.on.pull_request !== undefined, 'runs on pushes and pull requests');
  t.same(wf.permissions, { contents: 'read' }, 'least privilege');
  const jobs = Object.values(wf.jobs);
  t.equal(jobs.length, 1);
  const job = jobs[0]!;
  t.match(job['runs-on'], /^ubuntu-/);
  t.ok(job['timeout-minutes'] && job['timeout-minutes'] <= 60, 'bounded in time');
  t.equal(job.env?.E2E_BASE_URL, 'http://localhost:3000', 'the suite targets the composed app');

  const steps = job.steps;
  const index = (pred: (s: Step) => boolean, what: string) => {
    const i = steps.findIndex(pred);
    t.ok(i >= 0, `has a step that ${what}`);
    return i;
  };
  const checkout = index((s) => s.uses?.startsWith('actions/checkout@') ?? false, 'checks out');
  const writeEnv = index((s) => /> \.env\b/.test(s.run ?? ''), 'writes .env');
  const envStep = steps[writeEnv]!.run!;
  for (const name of requiredSecrets) t.match(envStep, new RegExp(`^\\s*echo "${name}=`, 'm'), `.env gets ${name}`);
  t.match(envStep, /openssl rand/, 'secrets are random, not fixed in the file');
  const up = index((s) => /docker compose up\b.*--wait/.test(s.run ?? ''), 'waits for healthy services');
  const install = index((s) => /npx playwright install --with-deps chromium/.test(s.run ?? ''), "installs Playwright's Chromium");
  const tests = index((s) => /npm run test:e2e\b|npx playwright test/.test(s.run ?? ''), 'runs the browser suite');
  t.match(steps[tests]!.run!, /CHROMIUM_PATH=.*executablePath\(\)/, "points playwright.config.ts at Playwright's own browser");
  const upload = index((s) => s.uses?.startsWith('actions/upload-artifact@') ?? false, 'uploads the report');
  const down = index((s) => /docker compose down\b/.test(s.run ?? ''), 'tears the stack down');

  t.ok(checkout < writeEnv && writeEnv < up && up < tests && install < tests, 'in order');
  t.equal(steps[upload]!.if, 'failure()', 'the report is uploaded when something failed');
  const paths = String(steps[upload]!.with?.path ?? '');
  for (const p of ['playwright-report', 'test-results', 'tests/screenshots']) t.match(paths, p, `uploads ${p}`);
  t.equal(steps[down]!.if, 'always()', 'torn down whatever happened');
  t.equal(down, steps.length - 1, 'teardown is the last step');
});

// scripts/test-e2e-compose.sh, run for real with stand-ins for `docker` and
// `npx` on PATH (there is no Docker engine here): they record their arguments
// and the environment the suite would see.
function runScript(opts: { envFile?: string; suiteFails?: boolean; upFails?: boolean; noCompose?: boolean }) {
  const dir = mkdtempSync(join(tmpdir(), 'shower-beer-e2e-compose-'));
  const bin = join(dir, 'bin');
  mkdirSync(join(dir, 'scripts'), { recursive: true });
  mkdirSync(bin);
  copyFileSync(join(root, 'scripts', 'test-e2e-compose.sh'), join(dir, 'scripts', 'test-e2e-compose.sh'));
  if (opts.envFile !== undefined) writeFileSync(join(dir, '.env'), opts.envFile);
  const log = join(dir, 'calls.log');
  writeFileSync(
    join(bin, 'docker'),
    `#!/bin/sh
echo "docker $* | RATE=$RATE_LIMIT_WRITES_PER_MINUTE" >> "${log}"
case "$*" in
  "compose version") ${opts.noCompose ? 'exit 1' : 'exit 0'} ;;
  *" up "*) ${opts.upFails ? 'exit 3' : 'exit 0'} ;;
esac
exit 0
`,
  );
  writeFileSync(
    join(bin, 'npx'),
    `#!/bin/sh
echo "npx $* | E2E_BASE_URL=$E2E_BASE_URL" >> "${log}"
${opts.suiteFails ? 'exit 1' : 'exit 0'}
`,
  );
  chmodSync(join(bin, 'docker'), 0o755);
  chmodSync(join(bin, 'npx'), 0o755);
  const res = spawnSync('bash', [join(dir, 'scripts', 'test-e2e-compose.sh'), 'tests/e2e/auth.spec.ts'], {
    encoding: 'utf8',
    env: { PATH: `${bin}:${process.env.PATH}`, HOME: dir, CHROMIUM_PATH: '/usr/bin/true' },
  });
  const calls = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
  const envPath = join(dir, '.env');
  const env = existsSync(envPath) ? readFileSync(envPath, 'utf8') : null;
  const mode = existsSync(envPath) ? statSync(envPath).mode & 0o777 : null;
  rmSync(dir, { recursive: true, force: true });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr, calls, env, mode };
}

t.test('test:e2e:compose writes a private .env with random secrets when there is none', async (t) => {
  const a = runScript({});
  t.equal(a.status, 0, a.stderr);
  t.equal(a.mode, 0o600, '.env is readable by its owner only');
  for (const name of requiredSecrets) t.match(a.env, new RegExp(`^${name}=.+$`, 'm'), `${name} is set`);
  const password = /^KC_BOOTSTRAP_ADMIN_PASSWORD=([0-9a-f]+)$/m.exec(a.env ?? '')?.[1];
  t.equal(password?.length, 48, 'a long random password');
  const b = runScript({});
  t.not(/^KC_BOOTSTRAP_ADMIN_PASSWORD=(.*)$/m.exec(b.env ?? '')?.[1], password, 'different on every machine');
});

t.test('test:e2e:compose keeps an existing .env and tests the app at its APP_PUBLIC_URL', async (t) => {
  const mine = 'KC_BOOTSTRAP_ADMIN_USERNAME=me\nKC_BOOTSTRAP_ADMIN_PASSWORD=mine\nS3_ACCESS_KEY=a\nS3_SECRET_KEY=b\nAPP_PUBLIC_URL=http://beer.lan:3000\n';
  const res = runScript({ envFile: mine });
  t.equal(res.status, 0, res.stderr);
  t.equal(res.env, mine, 'not overwritten');
  const [version, up, suite, down] = res.calls;
  t.match(version, /^docker compose version/);
  t.match(up, /^docker compose --project-name shower-beer-e2e up -d --build --wait/, 'a separate project, health-gated');
  t.match(up, /RATE=10000/);
  t.equal(suite, 'npx playwright test tests/e2e/auth.spec.ts | E2E_BASE_URL=http://beer.lan:3000', 'arguments pass through');
  t.match(down, /^docker compose --project-name shower-beer-e2e down --volumes/, 'only the test project is removed');
  t.equal(res.calls.length, 4);
});

t.test('test:e2e:compose tears the stack down when the suite or the start-up fails, and fails too', async (t) => {
  const failed = runScript({ suiteFails: true });
  t.not(failed.status, 0, 'the failure is reported');
  t.match(failed.calls.at(-1), /down --volumes/, 'torn down after failing tests');
  const noStart = runScript({ upFails: true });
  t.not(noStart.status, 0);
  t.notOk(noStart.calls.some((c) => c.startsWith('npx')), 'no tests against a stack that did not start');
  t.ok(noStart.calls.some((c) => / logs /.test(c)), 'prints the services\' logs');
  t.match(noStart.calls.at(-1), /down --volumes/);
});

t.test('test:e2e:compose explains what to do without Docker Compose v2', async (t) => {
  const res = runScript({ noCompose: true });
  t.equal(res.status, 1);
  t.match(res.stderr, /needs Docker with Compose v2/);
  t.match(res.stderr, /npm run test:e2e/);
  t.equal(res.env, null, 'wrote nothing');
});
