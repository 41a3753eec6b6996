import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { bareWebBuild, bearer, buildTestApp } from '../helpers.js';

/**
 * Issue 45, part 4: a page is made from one reading of the server's settings. Its <title>, the
 * config inlined in it and its prerendered landing text (made by the build's prerender from the
 * config it is handed, as web/src/prerender/worker.ts does) always name the same server, however
 * many saves arrive while pages are being made again (server/src/web/plugin.ts).
 */

/** A prerender that renders the name from the config it was handed, slowly enough for saves to land meanwhile. */
const slowPrerender = `
import { parentPort, workerData } from 'node:worker_threads';
await new Promise((resolve) => setTimeout(resolve, 40));
const name = workerData.config.instance.name;
parentPort.postMessage({ '/': { html: '<main><h1 data-landing>' + name + '</h1></main>', signedIn: false } });`;

const namesIn = (html: string) => ({
  title: /<title>([^<]*)<\/title>/.exec(html)?.[1],
  config: (JSON.parse(/<script type="application\/json" id="app-config">(.*?)<\/script>/s.exec(html)?.[1] ?? 'null') as { instance?: { name: string } } | null)
    ?.instance?.name,
  landing: /<h1 data-landing>([^<]*)<\/h1>/.exec(html)?.[1],
});

t.test('ten saves of the name in a row while pages are requested: every page names one server', async (t) => {
  const dist = bareWebBuild(t);
  mkdirSync(join(dist, '.ssr'));
  writeFileSync(join(dist, '.ssr', 'prerender.mjs'), slowPrerender);
  const { app, createUser } = await buildTestApp(t, { WEB_DIST_DIR: dist, ADMIN_USERNAMES: 'boss' });
  const boss = await createUser('boss');
  t.same(namesIn((await app.inject({ method: 'GET', url: '/' })).body), { title: 'Shower Beer', config: 'Shower Beer', landing: 'Shower Beer' });

  const seen: Array<ReturnType<typeof namesIn>> = [];
  let saving = true;
  const requests = (async () => {
    while (saving) {
      const res = await app.inject({ method: 'GET', url: '/' });
      seen.push(namesIn(res.body));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  const names = Array.from({ length: 10 }, (_, i) => `Server number ${i + 1}`);
  for (const name of names) {
    const res = await app.inject({ method: 'PUT', url: '/api/admin/instance', headers: bearer(boss.token), payload: { name } });
    t.equal(res.statusCode, 200, `saved "${name}"`);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
  // The rebuilds the last saves asked for, then one more round of pages.
  await app.reloadWebPages();
  saving = false;
  await requests;

  t.ok(seen.length >= 10, `pages were requested throughout (${seen.length})`);
  const mixed = seen.filter((p) => p.title !== p.config || p.config !== p.landing);
  t.same(mixed, [], 'no page names two servers');
  const shown = new Set(seen.map((p) => p.title));
  t.ok(shown.size >= 2, `the pages followed the saves (${[...shown].join(', ')})`);
  t.same(namesIn((await app.inject({ method: 'GET', url: '/' })).body), { title: names[9], config: names[9], landing: names[9] }, 'and end with the last save');
});
