// What the upgrade tests share: today's server started in-process on a DATA_DIR that an
// earlier release (or migration) left, as server/src/server.ts starts it with the embedded
// provider and local storage; and temporary folders that go with the test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import app from '../../src/app.js';
import { loadConfig, type Config } from '../../src/kernel/config.js';
import { fastifyOptions } from '../../src/fastify-options.js';

export interface Teardown {
  teardown(fn: () => unknown): void;
}

/** A temporary folder, removed when the test ends. */
export function tempDir(t: Teardown, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Today's server on `dataDir` (its migrations run as at any start), closed when the test ends. */
export async function startToday(t: Teardown, dataDir: string, env: Record<string, string> = {}): Promise<{ server: FastifyInstance; config: Config }> {
  const config = loadConfig({
    DATA_DIR: dataDir,
    PUBLIC_URL: 'http://localhost:3000',
    LOG_LEVEL: 'silent',
    WEB_DIST_DIR: join(dataDir, 'no-web'),
    READ_WORKERS: '0',
    AUTH_PROVIDER: 'embedded',
    STORAGE_DRIVER: 'local',
    ...env,
  });
  const server = Fastify(fastifyOptions(config));
  await server.register(fp(app), { config });
  await server.ready();
  t.teardown(() => server.close());
  return { server, config };
}
