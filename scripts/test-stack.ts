// `npm run test:stack`: the self-hosted path against real servers we did not write.
// The production tree the Dockerfile builds (scripts/prod-image.ts) runs with
// STORAGE_DRIVER=s3 against OpenStack Swift's S3 API (scripts/stack/swift.ts: it checks
// SigV4 signatures for real) and AUTH_PROVIDER=oidc, in two lanes:
//
// 1. Keycloak, the provider compose.yaml ships (scripts/stack/keycloak.ts: the version compose
//    pins, from Maven Central, started as compose starts it, the realm file imported as it is).
//    The Playwright specs whose subject it is run through it (KEYCLOAK_LANE_SPECS, below; at least
//    one walk of every spec screen and flow): people register on Keycloak's Register page,
//    sign in on its pages, sign out through its logout confirmation; the operator is given the
//    realm role through Keycloak's admin API; tests/e2e/keycloak.spec.ts checks the realm's
//    own promises (brute-force lockout, password policy, tokens of other realms and clients).
//    Keycloak is started as compose starts it, realm import and then compose's one-shot
//    keycloak-sync service (server/src/keycloak-sync.ts) included.
//    Its upgrade case (lane keycloak-upgrade, scripts/stack/keycloak-upgrade.ts), beside it on the
//    same Keycloak (one start per run; a start took about 120 s on CI's runners): an older release's
//    realm file imported under a realm name of its own, a registered person; after keycloak-sync,
//    today's realm settings are read back and in force, and the person still signs in. It runs just
//    before the suite, in its own realm: neither touches the other's (keycloak-upgrade.ts says why);
//    not beside it, so that the suite's timed checks (brute-force lockout) have Keycloak to themselves.
// 2. Glewlwyd (scripts/stack/glewlwyd.ts), a second OpenID provider, to show the app speaks
//    OpenID and not only Keycloak: the tests tagged @any-provider (sign up, sign in, post,
//    sign out, Login shows the form).
// 3. Federation over https (lane federation-tls, scripts/stack/federation-tls.ts): two servers of
//    the tree behind Caddy with certificates from its local authority; search by `@name@host`
//    (WebFinger over https), follow, a photo to the other's Following feed, a like back, and a
//    handle on a host outside FEDERATION_ALLOWED_PRIVATE_HOSTS refused unasked. Run first, while
//    Swift and Keycloak start: it needs neither.
//
//   npm run test:stack                       # builds the image's tree first (test:prod's recipe)
//   npm run test:stack -- --tree DIR         # a tree kept by `npm run test:prod -- --keep DIR`
//   npm run test:stack -- --only keycloak    # one lane (keycloak, keycloak-upgrade, glewlwyd or federation-tls; or a,b)
//   npm run test:stack -- --tree DIR -- tests/e2e/auth.spec.ts   # Playwright arguments after --
//
// Needs the Debian packages .ci/run installs (swift swift-proxy swift-account
// swift-container swift-object memcached glewlwyd sqlite3 unzip caddy), Java 17 or newer, Maven
// (for the first fetch of Keycloak) and /usr/bin/chromium; federation-tls adds a.test, b.test and
// c.test to /etc/hosts as 127.0.0.1 when they do not resolve (as root only).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildImage } from './prod-image.js';
import { freePort } from './prod/round-trip.js';
import { checkFederationOverTls } from './stack/federation-tls.js';
import { startGlewlwyd } from './stack/glewlwyd.js';
import { keycloakVersion, runKeycloakSync, startKeycloak, type Keycloak } from './stack/keycloak.js';
import { checkRealmUpgrade, upgradeRealmImport } from './stack/keycloak-upgrade.js';
import { glewlwydProvider, runE2eThroughProvider, type Provider } from './stack/run-oidc-e2e.js';
import { missingSwiftPackages, SWIFT_PACKAGES, startSwift, type Swift } from './stack/swift.js';

const log = (msg: string) => console.log(`test:stack: ${msg}`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const LANES = ['keycloak', 'keycloak-upgrade', 'glewlwyd', 'federation-tls'] as const;
type Lane = (typeof LANES)[number];

function parse(argv: string[]) {
  const dashes = argv.indexOf('--');
  const own = dashes < 0 ? argv : argv.slice(0, dashes);
  const playwrightArgs = dashes < 0 ? [] : argv.slice(dashes + 1);
  let tree: string | null = null;
  let lanes: Lane[] = [...LANES];
  for (let i = 0; i < own.length; i++) {
    if (own[i] === '--tree') tree = resolve(own[++i] ?? '');
    else if (own[i] === '--only') {
      lanes = (own[++i] ?? '').split(',') as Lane[];
      if (!lanes.every((lane) => LANES.includes(lane))) throw new Error(`--only takes ${LANES.join(', ')} (or several, comma-separated)`);
    } else throw new Error(`unknown option ${own[i]}`);
  }
  return { tree, lanes, playwrightArgs };
}

/**
 * What the Keycloak lane runs (unless Playwright arguments are given after --): the specs whose
 * subject is the sign-in, the operator's realm role or the photos through Swift, and at least one
 * walk of every spec screen and flow tests/e2e/COVERAGE.md lists for this lane. Left to the
 * embedded lane: post-edits, album-edits, alt-text and first-screen, whose flows and screens
 * the specs below walk too (their subject is the app's own pages, the same with any provider),
 * and the specs that skip themselves here (a11y, joining, passwords, federation, operator-pages).
 */
const KEYCLOAK_LANE_SPECS = [
  'account-delete', 'albums', 'auth', 'content-warnings', 'export', 'hashtags', 'keycloak', 'moderation',
  'notifications', 'photos', 'posts', 'private-accounts', 'profile', 'social',
].map((name) => `tests/e2e/${name}.spec.ts`);

function keycloakProvider(kc: Keycloak): Provider {
  return {
    kind: 'keycloak',
    issuer: kc.issuer,
    // As compose.yaml sets them for the app.
    clientId: 'shower-beer',
    audience: 'shower-beer-api',
    accountUrl: `${kc.issuer}/account`,
    logFile: kc.logFile,
    e2eEnv: {
      E2E_KEYCLOAK_URL: kc.baseUrl,
      E2E_KEYCLOAK_ADMIN_USER: kc.admin.username,
      E2E_KEYCLOAK_ADMIN_PASSWORD: kc.admin.password,
    },
  };
}

async function main(): Promise<number> {
  const { tree: given, lanes, playwrightArgs } = parse(process.argv.slice(2));
  const needsSwift = lanes.some((lane) => lane !== 'federation-tls');
  const missing = needsSwift ? missingSwiftPackages() : [];
  if (missing.length) throw new Error(`OpenStack Swift is not installed (missing ${missing.join(', ')}): apt-get install --no-install-recommends ${SWIFT_PACKAGES}`);

  const started = Date.now();
  let work: string | null = null;
  let tree = given;
  if (!tree) {
    work = mkdtempSync(join(tmpdir(), 'shower-beer-stack-'));
    log('building the image tree (the Dockerfile, as test:prod builds it)');
    const image = buildImage({ dockerfile: resolve('Dockerfile'), reuseCheckoutDeps: true, keep: null, buildOnly: true }, work);
    tree = join(image.root, image.workdir);
  }

  const appPort = await freePort();
  const publicUrl = `http://localhost:${appPort}`;
  let swift: Swift | null = null;
  let exitCode = 0;
  try {
    const federationOverTls = async () => {
      if (!lanes.includes('federation-tls')) return;
      try {
        const { ms } = await checkFederationOverTls({ appCwd: tree, appCommand: 'node server/dist/server.js', say: (msg) => log(`federation-tls: ${msg}`) });
        log(`federation-tls: passed in ${seconds(ms)}`);
      } catch (err) {
        console.error(`test:stack: federation-tls: FAIL: ${(err as Error).stack ?? err}`);
        exitCode = 1;
      }
    };
    if (!needsSwift) {
      await federationOverTls();
      return exitCode;
    }
    // Swift and Keycloak start side by side: Keycloak's start is the longer one.
    const swiftStarted = Date.now();
    // Its default 30 s to get ready ran out on a busy 2-core runner (account, container and proxy
    // servers all still starting, beside Keycloak's start): give it as long as the app gets.
    const swiftReady = startSwift({ appOrigins: [publicUrl], readyTimeoutMs: 90_000 }).then((s) => {
      log(`Swift's S3 API on ${s.endpoint} in ${seconds(Date.now() - swiftStarted)}`);
      return s;
    });
    // One Keycloak for both of its lanes: the upgrade case's realm is imported beside compose's.
    const upgrading = lanes.includes('keycloak-upgrade');
    const keycloakReady =
      lanes.includes('keycloak') || upgrading
        ? (log(`starting Keycloak ${keycloakVersion()} (the version compose.yaml pins)`),
          startKeycloak({ appUrl: publicUrl, extraRealms: upgrading ? upgradeRealmImport() : {} }, log))
        : null;
    // Settled from now on, so that a start that fails while federation-tls runs is not an unhandled rejection.
    const starting = Promise.allSettled([swiftReady, keycloakReady ?? Promise.resolve(null)]);
    // federation-tls needs neither: it runs while they start.
    await federationOverTls();
    const [s, kc] = await starting;
    if (s.status === 'fulfilled') swift = s.value;
    if (s.status === 'rejected' || kc.status === 'rejected') {
      if (kc.status === 'fulfilled') await kc.value?.stop();
      throw s.status === 'rejected' ? s.reason : (kc as PromiseRejectedResult).reason;
    }
    const storage = (bucket: string) => ({
      STORAGE_DRIVER: 's3',
      // The browser uploads to the same address the server signs for (the host is signed).
      S3_ENDPOINT: swift!.endpoint,
      S3_PUBLIC_ENDPOINT: swift!.endpoint,
      S3_REGION: swift!.region,
      S3_ACCESS_KEY: swift!.accessKey,
      S3_SECRET_KEY: swift!.secretKey,
      S3_BUCKET: bucket,
    });

    // As compose starts the stack: after Keycloak's import, the keycloak-sync service, then the app.
    const keycloakLane = async (keycloak: Keycloak): Promise<number> => {
      log(await runKeycloakSync(keycloak, tree));
      const result = await runE2eThroughProvider({
        provider: keycloakProvider(keycloak),
        appCwd: tree,
        appCommand: 'node server/dist/server.js',
        appPort,
        publicUrl,
        appEnv: storage('shower-beer'),
        playwrightArgs: playwrightArgs.length ? playwrightArgs : KEYCLOAK_LANE_SPECS,
        // At phone size only: the embedded lane walks the same pages at both sizes; this lane's
        // subject is the sign-in through Keycloak and the photos through Swift (tests/e2e/COVERAGE.md).
        playwrightEnv: { E2E_SIZES: process.env.E2E_SIZES ?? 'phone' },
      });
      log(`Keycloak lane: the app ready in ${seconds(result.appStartMs)}, Playwright ${seconds(result.playwrightMs)}, exit ${result.exitCode}`);
      return result.exitCode;
    };

    if (kc.value) {
      const keycloak = kc.value;
      log(
        `Keycloak ${keycloak.version} ready in ${seconds(keycloak.startMs)} (it reports started in ${keycloak.reportedStart}; start-dev's augmentation: ${keycloak.augmentation}): ${keycloak.issuer}`,
      );
      try {
        if (upgrading) {
          const upgradeStarted = Date.now();
          const code = await checkRealmUpgrade({ kc: keycloak, tree, say: (msg) => log(`keycloak-upgrade: ${msg}`) }).then(
            () => (log(`keycloak-upgrade: passed in ${seconds(Date.now() - upgradeStarted)}`), 0),
            (err: unknown) => (console.error(`test:stack: keycloak-upgrade: FAIL: ${(err as Error).stack ?? err}`), 1),
          );
          exitCode ||= code;
        }
        if (lanes.includes('keycloak')) {
          const code = await keycloakLane(keycloak);
          exitCode ||= code;
        }
      } finally {
        await keycloak.stop();
      }
    }

    if (lanes.includes('glewlwyd')) {
      const idp = await startGlewlwyd({ appUrl: publicUrl });
      log(`Glewlwyd ready in ${seconds(idp.startMs)}: ${idp.issuer}`);
      try {
        const result = await runE2eThroughProvider({
          provider: glewlwydProvider(idp),
          appCwd: tree,
          appCommand: 'node server/dist/server.js',
          appPort,
          publicUrl,
          appEnv: storage('shower-beer-glewlwyd'),
          // One browser at a time: with two, Glewlwyd (SQLite backend) answered an authorize
          // request with error=server_error twice in about sixty sign-ins.
          playwrightArgs: ['--workers=1', '--grep', '@any-provider', ...playwrightArgs],
          playwrightEnv: { E2E_SIZES: process.env.E2E_SIZES ?? 'phone' },
        });
        log(`Glewlwyd lane: the app ready in ${seconds(result.appStartMs)}, Playwright ${seconds(result.playwrightMs)}, exit ${result.exitCode}`);
        exitCode ||= result.exitCode;
      } finally {
        await idp.stop();
      }
    }
    log(`${seconds(Date.now() - started)} in all`);
    if (exitCode !== 0 && swift) log(`Swift's log, last lines:\n${swift.logTail(30)}`);
    return exitCode;
  } finally {
    await swift?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`test:stack: FAIL: ${(err as Error).stack ?? err}`);
    process.exit(1);
  },
);
