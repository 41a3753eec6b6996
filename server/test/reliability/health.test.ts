import { rmSync } from 'node:fs';
import t from 'tap';
import { buildTestApp } from '../helpers.js';

t.test('readyz says which dependency is down, without revealing paths', async (t) => {
  const { app, config } = await buildTestApp(t);
  t.same((await app.inject({ method: 'GET', url: '/readyz' })).json(), { status: 'ok', checks: { database: 'ok', storage: 'ok' } });
  rmSync(config.storage.localDir, { recursive: true, force: true });
  const down = await app.inject({ method: 'GET', url: '/readyz' });
  t.equal(down.statusCode, 503);
  t.same(down.json(), { status: 'unavailable', checks: { database: 'ok', storage: 'unavailable' } });
  t.notMatch(down.body, new RegExp(config.dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'no path in the answer');
  const live = await app.inject({ method: 'GET', url: '/healthz' });
  t.equal(live.statusCode, 200, 'the process is still alive');
  t.equal(live.headers['cache-control'], 'no-store');
});
