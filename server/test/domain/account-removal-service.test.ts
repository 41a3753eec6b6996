import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { findAppRoot } from '../../src/kernel/config.js';
import { openDatabase } from '../../src/kernel/db/client.js';
import { createAccountsService } from '../../src/idp/accounts-service.js';
import { insertPost } from '../api/factories.js';

const root = findAppRoot();
const run = (script: string, dataDir: string, args: string[]) =>
  spawnSync(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'scripts', script), ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, AUTH_PROVIDER: 'embedded', STORAGE_DRIVER: 'local' },
    encoding: 'utf8',
    timeout: 60_000,
  });

t.test('npm run user:remove removes an account and its posts; it can no longer sign in', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'shower-beer-userremove-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  t.equal(run('user-add.ts', dataDir, ['alice', 'alice@example.com', 'correct horse battery']).status, 0);

  const file = join(dataDir, 'shower-beer.db');
  let db = openDatabase(file, join(root, 'migrations'));
  const id = db.sqlite.prepare('SELECT id FROM users WHERE username = ?').pluck().get('alice') as number;
  insertPost(db.sqlite, { userId: id, caption: 'hello' });
  db.close();

  const missing = run('user-remove.ts', dataDir, ['nobody']);
  t.equal(missing.status, 1);
  t.match(missing.stderr, /There is no user named "nobody"\./);
  t.match(run('user-remove.ts', dataDir, []).stderr, /Usage: npm run user:remove -- <username>/);

  const removed = run('user-remove.ts', dataDir, ['ALICE']);
  t.equal(removed.status, 0, removed.stderr);
  t.match(removed.stdout, /Removed "alice": 1 post\(s\)/);

  db = openDatabase(file, join(root, 'migrations'));
  t.teardown(() => db.close());
  t.equal(db.sqlite.prepare('SELECT count(*) FROM posts').pluck().get(), 0);
  t.match(await createAccountsService(db.sqlite).signIn('alice', 'correct horse battery'), { ok: false, reason: 'invalid' });
  t.equal(run('user-remove.ts', dataDir, ['alice']).status, 1, 'a second removal finds nobody');
});
