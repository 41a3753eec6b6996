import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { findAppRoot } from '../../src/kernel/config.js';
import { openDatabase } from '../../src/kernel/db/client.js';
import { createAccountsService } from '../../src/idp/accounts-service.js';

const root = findAppRoot();

function runUserAdd(dataDir: string, args: string[]) {
  return spawnSync(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'scripts', 'user-add.ts'), ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, AUTH_PROVIDER: 'embedded' },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

t.test('npm run user:add creates an account that can sign in, and refuses bad input', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'shower-beer-useradd-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

  const ok = runUserAdd(dataDir, ['alice', 'alice@example.com', 'hoppy lager 42']);
  t.equal(ok.status, 0, ok.stderr);
  t.match(ok.stdout, /Created account "alice" <alice@example\.com>/);

  const taken = runUserAdd(dataDir, ['ALICE', 'other@example.com', 'hoppy lager 42']);
  t.equal(taken.status, 1);
  t.match(taken.stderr, /That username is already taken/);

  const bad = runUserAdd(dataDir, ['bob', 'not-an-email', 'short']);
  t.equal(bad.status, 1);
  t.match(bad.stderr, /Enter a valid email address/);
  t.match(bad.stderr, /at least 8 characters/);

  const missing = runUserAdd(dataDir, ['carol']);
  t.equal(missing.status, 1);
  t.match(missing.stderr, /Usage: npm run user:add -- <username> <email> <password>/);

  const database = openDatabase(join(dataDir, 'shower-beer.db'), join(root, 'migrations'));
  t.teardown(() => database.close());
  const rows = database.sqlite.prepare('SELECT id, username, password_hash AS hash FROM idp_accounts').all() as {
    id: string;
    username: string;
    hash: string;
  }[];
  t.same(rows.map((r) => r.username), ['alice'], 'only the good account was written');
  t.match(rows[0]!.hash, /^scrypt\$/, 'hashed like a sign-up');
  t.notOk(rows[0]!.hash.includes('hoppy lager 42'));
  const user = database.sqlite.prepare('SELECT username FROM users WHERE sub = ?').get(rows[0]!.id) as { username: string } | undefined;
  t.equal(user?.username, 'alice', 'the API knows the user before the first sign-in');
  t.match(await createAccountsService(database.sqlite).signIn('alice', 'hoppy lager 42'), { ok: true }, 'the password works');
});
