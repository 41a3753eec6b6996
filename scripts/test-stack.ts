// `npm run test:stack`: the self-hosted path against real servers we did not write.
// The production tree the Dockerfile builds (scripts/prod-image.ts) runs with
// STORAGE_DRIVER=s3 against OpenStack Swift's S3 API (scripts/stack/swift.ts: it checks
// SigV4 signatures for real) and AUTH_PROVIDER=oidc against Glewlwyd, an OpenID provider
// (scripts/stack/glewlwyd.ts), and the whole Playwright suite runs through it, signing
// people in on Glewlwyd's own pages and uploading photos straight to Swift.
//
//   npm run test:stack                       # builds the image's tree first (test:prod's recipe)
//   npm run test:stack -- --tree DIR         # a tree kept by `npm run test:prod -- --keep DIR`
//   npm run test:stack -- --tree DIR -- tests/e2e/auth.spec.ts   # Playwright arguments after --
//
// Needs the Debian packages .ci/run installs (swift swift-proxy swift-account
// swift-container swift-object memcached glewlwyd sqlite3) and /usr/bin/chromium.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildImage } from './prod-image.js';
import { freePort } from './prod/round-trip.js';
import { missingSwiftPackages, SWIFT_PACKAGES, startSwift, type Swift } from './stack/swift.js';
import { runOidcE2e } from './stack/run-oidc-e2e.js';

const log = (msg: string) => console.log(`test:stack: ${msg}`);

function parse(argv: string[]) {
  const dashes = argv.indexOf('--');
  const own = dashes < 0 ? argv : argv.slice(0, dashes);
  const playwrightArgs = dashes < 0 ? [] : argv.slice(dashes + 1);
  let tree: string | null = null;
  for (let i = 0; i < own.length; i++) {
    if (own[i] === '--tree') tree = resolve(own[++i] ?? '');
    else throw new Error(`unknown option ${own[i]}`);
  }
  return { tree, playwrightArgs };
}

async function main(): Promise<number> {
  const { tree: given, playwrightArgs } = parse(process.argv.slice(2));
  const missing = missingSwiftPackages();
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
  try {
    swift = await startSwift({ appOrigins: [publicUrl] });
    log(`Swift's S3 API on ${swift.endpoint} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const result = await runOidcE2e({
      appCwd: tree,
      appCommand: 'node server/dist/server.js',
      appPort,
      publicUrl,
      appEnv: {
        STORAGE_DRIVER: 's3',
        // The browser uploads to the same address the server signs for (the host is signed).
        S3_ENDPOINT: swift.endpoint,
        S3_PUBLIC_ENDPOINT: swift.endpoint,
        S3_REGION: swift.region,
        S3_ACCESS_KEY: swift.accessKey,
        S3_SECRET_KEY: swift.secretKey,
        S3_BUCKET: 'shower-beer',
      },
      // One browser at a time: with two, Glewlwyd (SQLite backend) answered an authorize request
      // with error=server_error twice in about sixty sign-ins (and a user creation with 500 once),
      // so two tests passed only on their retry. With one worker the suite took 1.8 minutes, not longer.
      playwrightArgs: playwrightArgs.some((a) => a.startsWith('--workers')) ? playwrightArgs : ['--workers=1', ...playwrightArgs],
    });
    log(
      `Glewlwyd ready in ${(result.glewlwydStartMs / 1000).toFixed(1)} s, the app in ${(result.appStartMs / 1000).toFixed(1)} s, ` +
        `Playwright ${(result.playwrightMs / 1000).toFixed(0)} s; ${((Date.now() - started) / 1000).toFixed(0)} s in all`,
    );
    if (result.exitCode !== 0) log(`Swift's log, last lines:\n${swift.logTail(30)}`);
    return result.exitCode;
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
