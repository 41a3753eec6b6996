import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { findAppRoot } from '../../src/kernel/config.js';

// docker-compose (Debian's package, v1.29) validates and merges compose files
// without a Docker daemon. CI installs it (.ci/run); elsewhere the compose
// checks are skipped with this message, and only then.
const root = findAppRoot();
const hasCompose = spawnSync('docker-compose', ['version'], { encoding: 'utf8' }).status === 0;
const noCompose = hasCompose ? false : 'docker-compose is not installed: apt-get install docker-compose';

const work = mkdtempSync(join(tmpdir(), 'shower-beer-compose-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

const SECRETS = {
  KC_BOOTSTRAP_ADMIN_USERNAME: 'admin',
  KC_BOOTSTRAP_ADMIN_PASSWORD: 'test-admin-password-1234',
  S3_ACCESS_KEY: 'testaccesskey',
  S3_SECRET_KEY: 'test-secret-key-5678',
};

/** Runs docker-compose on the repository's files with only this env file (nothing from the shell leaks in). */
function compose(env: Record<string, string>, files: string[], args: string[]) {
  const envFile = join(work, `env-${Math.random().toString(36).slice(2)}`);
  writeFileSync(envFile, Object.entries(env).map(([k, v]) => `${k}=${v}\n`).join(''));
  const fileArgs = files.flatMap((f) => ['-f', join(root, f)]);
  return new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      'docker-compose',
      ['--env-file', envFile, '--project-directory', root, ...fileArgs, ...args],
      { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work }, maxBuffer: 10 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ status: err ? Number((err as { code?: unknown }).code) || 1 : 0, stdout, stderr }),
    );
  });
}

interface Service {
  image?: string;
  build?: unknown;
  command?: string | string[];
  environment?: Record<string, string>;
  ports?: { published: number | string; target: number }[];
  volumes?: (string | { source?: string; target: string })[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
}
interface Resolved {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

async function resolved(env: Record<string, string>, files = ['compose.yaml']): Promise<Resolved> {
  const res = await compose(env, files, ['config']);
  if (res.status !== 0) throw new Error(`docker-compose config failed: ${res.stderr}`);
  return parse(res.stdout) as Resolved;
}

const volumeTargets = (s: Service) => (s.volumes ?? []).map((v) => (typeof v === 'string' ? v.split(':')[1] : v.target));

t.test('compose.yaml validates with every secret set', { skip: noCompose }, async (t) => {
  const res = await compose(SECRETS, ['compose.yaml'], ['config', '-q']);
  t.equal(res.status, 0, res.stderr);
});

t.test('the stack refuses to start when a secret is unset or empty, naming it', { skip: noCompose }, async (t) => {
  const names = Object.keys(SECRETS);
  const runs = await Promise.all(
    names.map((name) => {
      const without = { ...SECRETS } as Record<string, string>;
      delete without[name];
      return compose(without, ['compose.yaml'], ['config', '-q']);
    }),
  );
  runs.forEach((missing, i) => {
    t.not(missing.status, 0, `${names[i]} unset`);
    t.match(missing.stderr, names[i]!, `the message names ${names[i]}`);
  });
  const empty = await compose({ ...SECRETS, KC_BOOTSTRAP_ADMIN_PASSWORD: '' }, ['compose.yaml'], ['config', '-q']);
  t.not(empty.status, 0, 'an empty password counts as unset');
  // .env.example as shipped leaves the passwords blank on purpose.
  const exampleEnv = Object.fromEntries(
    [...readFileSync(join(root, '.env.example'), 'utf8').matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]),
  );
  t.ok('KC_BOOTSTRAP_ADMIN_PASSWORD' in exampleEnv, '.env.example has the password line');
  const example = await compose(exampleEnv, ['compose.yaml'], ['config', '-q']);
  t.not(example.status, 0, 'an unedited copy of .env.example does not start');
  t.match(example.stderr, /set (KC_BOOTSTRAP_ADMIN_PASSWORD|S3_SECRET_KEY) in \.env/, 'and says which secret to set');
});

t.test('three services and the realm sync, pinned images, health-gated start, named volumes', { skip: noCompose }, async (t) => {
  const cfg = await resolved(SECRETS);
  t.same(Object.keys(cfg.services).sort(), ['app', 'keycloak', 'keycloak-sync', 'minio']);
  const { keycloak, minio, app } = cfg.services as Record<'keycloak' | 'minio' | 'app', Service>;

  t.match(keycloak.image, /^quay\.io\/keycloak\/keycloak:26\.\d+\.\d+$/, 'Keycloak pinned to an exact 26.x tag');
  t.same([keycloak.command].flat(), ['start-dev', '--import-realm']);
  t.equal(minio.image, 'quay.io/minio/minio:RELEASE.2025-09-07T16-13-09Z');
  t.ok(app.build, 'the app is built from the Dockerfile');

  t.same(app.depends_on, {
    keycloak: { condition: 'service_healthy' },
    'keycloak-sync': { condition: 'service_completed_successfully' },
    minio: { condition: 'service_healthy' },
  });
  const kcCheck = keycloak.healthcheck!.test.join(' ');
  t.match(kcCheck, '/dev/tcp/127.0.0.1/9000', 'Keycloak checked on its management port without curl');
  t.match(kcCheck, '/health/ready');
  t.notMatch(kcCheck, /curl|wget/);
  t.same(minio.healthcheck!.test, ['CMD', 'mc', 'ready', 'local']);

  t.ok(volumeTargets(keycloak).includes('/opt/keycloak/data'), 'Keycloak users survive restarts');
  t.ok(volumeTargets(keycloak).includes('/opt/keycloak/data/import'), 'the realm file is mounted for import');
  t.ok(volumeTargets(minio).includes('/data'));
  t.ok(volumeTargets(app).includes('/data'));
  t.same(Object.keys(cfg.volumes ?? {}).sort(), ['app-data', 'keycloak-data', 'minio-data']);

  const published = Object.values(cfg.services)
    .flatMap((s) => s.ports ?? [])
    .map((p) => Number(p.published))
    .sort();
  t.same(published, [3000, 8080, 9000], 'only the app, the sign-in pages and the S3 API are published');
});

t.test('the wiring: public issuer in tokens, internal JWKS host, S3 signed for the public endpoint', { skip: noCompose }, async (t) => {
  const { keycloak, minio, app } = (await resolved({
    ...SECRETS,
    APP_PUBLIC_URL: 'https://beer.example.org',
    KEYCLOAK_PUBLIC_URL: 'https://auth.beer.example.org',
    S3_PUBLIC_ENDPOINT: 'https://s3.beer.example.org',
  })).services as Record<'keycloak' | 'minio' | 'app', Service>;
  const kc = keycloak.environment!;
  t.equal(kc.KC_HOSTNAME, 'https://auth.beer.example.org');
  t.equal(kc.KC_HOSTNAME_BACKCHANNEL_DYNAMIC, 'true');
  t.equal(kc.KC_HEALTH_ENABLED, 'true');
  t.equal(kc.APP_PUBLIC_URL, 'https://beer.example.org', 'the realm import resolves its redirect URIs from it');
  t.equal(kc.KC_BOOTSTRAP_ADMIN_PASSWORD, SECRETS.KC_BOOTSTRAP_ADMIN_PASSWORD);
  t.equal(minio.environment!.MINIO_API_CORS_ALLOW_ORIGIN, 'https://beer.example.org', 'CORS limited to the app');
  t.equal(minio.environment!.MINIO_ROOT_PASSWORD, SECRETS.S3_SECRET_KEY);

  const env = app.environment!;
  t.equal(env.PUBLIC_URL, 'https://beer.example.org');
  t.equal(env.AUTH_PROVIDER, 'oidc');
  t.equal(env.OIDC_ISSUER, 'https://auth.beer.example.org/realms/shower-beer');
  t.equal(env.OIDC_INTERNAL_ISSUER, 'http://keycloak:8080/realms/shower-beer');
  t.equal(env.STORAGE_DRIVER, 's3');
  t.equal(env.S3_ENDPOINT, 'http://minio:9000');
  t.equal(env.S3_PUBLIC_ENDPOINT, 'https://s3.beer.example.org');
  t.equal(env.HOST, '0.0.0.0');

  // The realm's audience mapper and the app's accepted audience must agree.
  const realm = JSON.parse(readFileSync(join(root, 'keycloak', 'shower-beer-realm.json'), 'utf8'));
  const mapper = realm.clients[0].protocolMappers.find((m: { protocolMapper: string }) => m.protocolMapper === 'oidc-audience-mapper');
  t.equal(env.OIDC_AUDIENCE, mapper.config['included.custom.audience']);
  t.equal(env.OIDC_CLIENT_ID, realm.clients[0].clientId);
});

t.test('the realm sync: the app image, the same realm file as the import, once per start, before the app', { skip: noCompose }, async (t) => {
  const cfg = await resolved({ ...SECRETS, APP_PUBLIC_URL: 'https://beer.example.org' });
  const { keycloak, app } = cfg.services as Record<'keycloak' | 'app', Service>;
  const sync = cfg.services['keycloak-sync'] as Service & { restart?: string };
  t.equal(sync.image, app.image, "the app's image");
  t.same(sync.build, app.build, 'built from the same Dockerfile');
  t.same(sync.depends_on, { keycloak: { condition: 'service_healthy' } });
  t.equal(sync.restart, 'no', 'runs once per start and exits');
  t.notOk(sync.ports, 'publishes nothing');
  // docker-compose 1.29 prints volumes as "source:target:mode", newer ones as objects.
  const mounts = (s: Service) =>
    (s.volumes ?? []).map((v) => (typeof v === 'string' ? { source: v.split(':')[0], target: v.split(':')[1]! } : v));
  const importDir = mounts(keycloak).find((v) => v.target === '/opt/keycloak/data/import');
  const realmDir = mounts(sync).find((v) => v.source === importDir?.source);
  t.ok(realmDir, 'mounts the folder Keycloak imports from');
  const command = [sync.command].flat();
  t.same(command.slice(0, 2), ['node', 'server/dist/keycloak-sync.js']);
  t.equal(command[2], `${realmDir!.target}/shower-beer-realm.json`, 'and reads the realm file from it');
  const env = sync.environment!;
  t.equal(env.KEYCLOAK_URL, 'http://keycloak:8080');
  t.equal(env.KEYCLOAK_ADMIN_USERNAME, SECRETS.KC_BOOTSTRAP_ADMIN_USERNAME);
  t.equal(env.KEYCLOAK_ADMIN_PASSWORD, SECRETS.KC_BOOTSTRAP_ADMIN_PASSWORD);
  t.equal(env.APP_PUBLIC_URL, keycloak.environment!.APP_PUBLIC_URL, "fills the file's ${APP_PUBLIC_URL} as the import does");
  t.equal(env.APP_PUBLIC_URL, 'https://beer.example.org');
  t.notOk(app.environment!.KEYCLOAK_ADMIN_PASSWORD, "the app itself never holds Keycloak's administrator");
});

t.test('the SeaweedFS override merges onto the base file and replaces only the S3 server', { skip: noCompose }, async (t) => {
  const files = ['compose.yaml', 'compose.seaweedfs.yaml'];
  const res = await compose(SECRETS, files, ['config', '-q']);
  t.equal(res.status, 0, res.stderr);
  const without = { ...SECRETS } as Record<string, string>;
  delete without.S3_SECRET_KEY;
  t.not((await compose(without, files, ['config', '-q'])).status, 0, 'still refuses an unset secret');

  const cfg = await resolved(SECRETS, files);
  const { minio, app } = cfg.services as Record<'minio' | 'app', Service>;
  t.match(minio.image, /^chrislusf\/seaweedfs:\d+\.\d+$/, 'SeaweedFS pinned');
  const weed = [minio.command].flat().join(' ');
  t.match(weed, /weed server .*-s3 .*-s3\.port=9000/);
  t.match(weed, /-ip\.bind=0\.0\.0\.0/, 'reachable from the app container');
  t.match(weed, /-volume\.max=0/, 'volumes grow with the disk');
  t.match(weed, /-s3\.allowedOrigins="\$\$APP_PUBLIC_URL"/, "CORS for the app only (the container's shell expands it)");
  t.equal(minio.environment!.APP_PUBLIC_URL, 'http://localhost:3000');
  t.same(volumeTargets(minio), ['/data']);
  t.ok((minio.volumes as (string | { source?: string })[]).some((v) => (typeof v === 'string' ? v.startsWith('seaweedfs-data:') : v.source === 'seaweedfs-data')));
  t.notMatch(minio.healthcheck!.test.join(' '), /\bmc\b/, 'its own health check');
  t.equal(app.environment!.S3_ENDPOINT, 'http://minio:9000', 'the app is unchanged');
  t.same(Object.keys(app.depends_on ?? {}).sort(), ['keycloak', 'keycloak-sync', 'minio'], 'the app still waits for the realm sync');
});

t.test('the compose files hold no secret of their own', async (t) => {
  for (const file of ['compose.yaml', 'compose.seaweedfs.yaml']) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const name of Object.keys(SECRETS)) {
      for (const m of text.matchAll(new RegExp(`\\$\\{${name}([^}]*)\\}`, 'g'))) {
        t.match(m[1], /^:\?/, `${file}: ${name} is required, never defaulted`);
      }
    }
    t.notMatch(text, /(PASSWORD|SECRET_KEY|ROOT_USER):\s*["']?[A-Za-z0-9]/, `${file}: no literal credentials`);
  }
});

t.test('.env.example lists every variable the app and the compose files read', async (t) => {
  const example = readFileSync(join(root, '.env.example'), 'utf8');
  const listed = new Set([...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
  const config = readFileSync(join(root, 'server', 'src', 'config.ts'), 'utf8');
  const appVars = [...config.matchAll(/\(env, '([A-Z0-9_]+)'/g)].map((m) => m[1]!);
  t.ok(appVars.length > 20, `found the app's variables (${appVars.length})`);
  const composeVars = ['compose.yaml', 'compose.seaweedfs.yaml'].flatMap((f) =>
    [...readFileSync(join(root, f), 'utf8').matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!),
  );
  for (const name of new Set([...appVars, ...composeVars])) t.ok(listed.has(name), `${name} is in .env.example`);
});

t.test('the Dockerfile: Node 22, production dependencies only, non-root, a health check without curl', async (t) => {
  const text = readFileSync(join(root, 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');
  const stages = text.split(/^FROM /m).slice(1);
  t.ok(stages.length >= 2, 'multi-stage');
  const names = stages.map((s) => / AS (\S+)/.exec(s.split('\n')[0]!)?.[1]);
  stages.forEach((s, i) => {
    const base = s.split(/\s/)[0]!;
    t.ok(base.startsWith('node:22') || names.slice(0, i).includes(base), `stage ${i + 1} is Node 22 (${base})`);
  });
  // One Node: what CI and development run (.node-version, read by scripts/use-node.sh and .ci/run) and what npm requires are the image's.
  const ciNode = readFileSync(join(root, '.node-version'), 'utf8').trim();
  t.match(ciNode, /^22\.\d+\.\d+$/, `.node-version (${ciNode}) is an exact Node 22`);
  t.match(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines.node, /^>=22\./, 'engines asks for Node 22 or newer');
  t.match(text, /npm ci --omit=dev/);
  const runtime = stages[stages.length - 1]!;
  t.match(runtime, /^USER (node|\d+)/m, 'runs as a non-root user');
  t.notMatch(runtime, /npm ci(?! --omit=dev)/, 'no full install in the runtime stage');
  t.match(runtime, /HEALTHCHECK[\s\S]*node[\s\S]*\/(healthz|readyz)/);
  t.notMatch(runtime, /curl|wget/);
  t.match(runtime, /CMD \["node", "server\/dist\/server\.js"\]/, 'the start command npm run test:prod runs');
  const ignore = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n');
  for (const entry of ['**/node_modules', '.env', '.git', 'data']) t.ok(ignore.includes(entry), `.dockerignore keeps ${entry} out`);
});
