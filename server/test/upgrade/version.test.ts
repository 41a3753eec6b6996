import { readFileSync } from 'node:fs';
import t from 'tap';
import { APP_VERSION, versionName, versionNumber } from '../../src/kernel/version.js';
import { buildTestApp } from '../helpers.js';

const pkg = (path: string) => (JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { version: string }).version;

t.test('one version: the root, server and web package.json agree, CHANGELOG.md has it, GET /api/instance says it', async (t) => {
  const root = pkg('../../../package.json');
  t.match(root, /^\d+\.\d+\.\d+$/);
  t.equal(pkg('../../package.json'), root, 'server/package.json');
  t.equal(pkg('../../../web/package.json'), root, 'web/package.json');
  t.equal(APP_VERSION, root);
  const changelog = readFileSync(new URL('../../../CHANGELOG.md', import.meta.url), 'utf8');
  t.match(changelog, new RegExp(`^## ${root.replace(/\./g, '\\.')} `, 'm'), 'CHANGELOG.md has a section for this version');

  const { app } = await buildTestApp(t);
  const res = await app.inject({ method: 'GET', url: '/api/instance' });
  t.equal(res.statusCode, 200);
  t.equal(res.json().version, root);
});

t.test('the number the database records reads back as the version', async (t) => {
  t.equal(versionNumber('0.4.0'), 4000);
  t.equal(versionNumber('1.12.3'), 1_012_003);
  t.equal(versionName(versionNumber('2.0.17')), '2.0.17');
  t.match(versionName(0), /before 0\.4\.0/);
});
