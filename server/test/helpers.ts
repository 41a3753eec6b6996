import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import app from '../src/app.js';
import { discoverAuthEndpoints } from '../src/kernel/auth/discovery.js';
import { issueAccessToken } from '../src/kernel/auth/issue.js';
import { findAppRoot, loadConfig, type Config } from '../src/kernel/config.js';
import { openDatabase } from '../src/kernel/db/client.js';
import { fastifyOptions } from '../src/fastify-options.js';

/** The subset of tap's Test we use, so helpers need no tap types. */
export interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface TestApp {
  app: FastifyInstance;
  config: Config;
  dataDir: string;
  /** A bearer token for a user (created in the API on first use, like a real sign-in). */
  tokenFor(user: TestUser): Promise<string>;
  /** Signs in a new user through the API and returns its token and id. */
  createUser(username: string, email?: string): Promise<TestUser & { sub: string; token: string; id: number }>;
}

export interface TestUser {
  sub?: string;
  username: string;
  email?: string;
  /** The token carries the operator realm role, as Keycloak's would (kernel/auth/operators.ts). */
  operator?: boolean;
}

let template: string | null = null;

/**
 * A database migrated from the real migrations/ folder once per test process (openDatabase, as
 * the server does at start). Each app and fresh database starts from a copy: running all the
 * migrations costs about 0.1 s of CPU, and the suite makes over two hundred of them.
 * server/test/upgrade/ and db/ run the migrations themselves, on data.
 */
function migratedTemplate(): string {
  if (!template) {
    const dir = mkdtempSync(join(tmpdir(), 'shower-beer-template-'));
    openDatabase(join(dir, 'template.db'), join(findAppRoot(), 'migrations')).close();
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    template = join(dir, 'template.db');
  }
  return template;
}

/** Puts a copy of the migrated template at `file`, unless a database is there already. */
function seedDatabase(file: string): void {
  if (!existsSync(file)) copyFileSync(migratedTemplate(), file);
}

/**
 * A fresh server on a throw-away DATA_DIR, its database copied from one migrated from the real
 * migrations/ folder (the server still opens and migrates it as at any start). Closed and
 * removed when the test ends.
 */
export async function buildTestApp(t: Teardown, env: Record<string, string> = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'shower-beer-test-'));
  // As server.ts does: with AUTH_PROVIDER=oidc the endpoints come from the provider's discovery document.
  const config = await discoverAuthEndpoints(loadConfig({
    DATA_DIR: dataDir,
    PUBLIC_URL: 'http://localhost:3000',
    LOG_LEVEL: 'silent',
    WEB_DIST_DIR: join(dataDir, 'no-web'),
    // Feed pages inline (a thread start per app costs) unless a test, or a whole
    // file through TEST_READ_WORKERS, asks for read workers.
    READ_WORKERS: process.env.TEST_READ_WORKERS ?? '0',
    ...env,
  }));
  mkdirSync(dirname(config.databaseFile), { recursive: true });
  seedDatabase(config.databaseFile);
  const fastify = Fastify(fastifyOptions(config));
  // fp: the app's decorations (signingKey, users, database, verifyToken…) are reachable from tests.
  await fastify.register(fp(app), { config });
  await fastify.ready();
  t.teardown(async () => {
    await fastify.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const subs = new Map<string, string>();
  const tokenFor = async (user: TestUser) => {
    if (!fastify.signingKey) throw new Error('tokenFor needs the embedded provider');
    const sub = user.sub ?? subs.get(user.username) ?? randomUUID();
    subs.set(user.username, sub);
    return issueAccessToken(fastify.signingKey, config.auth, {
      sub,
      username: user.username,
      email: user.email ?? `${user.username}@example.test`,
      operator: user.operator,
    });
  };
  const createUser = async (username: string, email?: string) => {
    const token = await tokenFor({ username, email });
    const sub = subs.get(username)!;
    const row = fastify.users.upsertFromClaims(sub, username, email ?? `${username}@example.test`);
    if (!row) throw new Error('user could not be created');
    return { username, email, sub, token, id: row.id };
  };
  return { app: fastify, config, dataDir, tokenFor, createUser };
}

/** Authorization header for app.inject. */
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * A fresh database file (WAL, so other connections and read workers can open it), a copy of
 * the migrated template opened as the server opens it; closed and removed when the test ends.
 */
export function freshDatabase(t: Teardown, prefix = 'shower-beer-db-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  seedDatabase(join(dir, 'test.db'));
  const handle = openDatabase(join(dir, 'test.db'), join(findAppRoot(), 'migrations'));
  t.teardown(() => {
    handle.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return handle.sqlite;
}

/**
 * A WEB_DIST_DIR with a bare index.html, sw.js and an SVG: enough for the server to serve the app's
 * pages (web/plugin.ts), for tests of what a page gets that other answers do not.
 */
export function bareWebBuild(t: Teardown): string {
  const dist = mkdtempSync(join(tmpdir(), 'shower-beer-web-'));
  t.teardown(() => rmSync(dist, { recursive: true, force: true }));
  writeFileSync(join(dist, 'index.html'), '<!doctype html><html><head><title>Shower Beer</title></head><body><div id="root"></div></body></html>');
  writeFileSync(join(dist, 'sw.js'), 'self.addEventListener("fetch", () => {});');
  writeFileSync(join(dist, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><rect width="1" height="1"/></svg>');
  return dist;
}
